"""Single-file components (Vue, Svelte, Astro): each script read in its own language, each
symbol at its line in the file."""

from __future__ import annotations

from recalld.parsers import parse

VUE_COMPONENT = b"""<template>
  <!-- <script>function commentedOut() {}</script> -->
  <button @click="increment">{{ count }}</button>
</template>

<script>
export default {
  data() { return { open: false }; },
  computed: { label() { return 'x'; } },
  methods: { reset() {}, toggle: function () {} },
  watch: { open(value) {}, 'label.size': function () {} },
};
</script>

<script setup lang="ts">
/** Counts. */
function increment(by: number = 1): void {
  // TODO: debounce
}
function reset() {}
</script>

<script src="./extra.ts"></script>
<script lang="coffee">
square = (x) -> x * x
</script>
<style scoped>button { color: red; }</style>
"""


def test_a_single_file_components_scripts_are_read_in_their_own_language():
    """A Vue or Svelte component was no source recalld read: element-ui 2.15's 116
    ``.vue`` files gave no symbol, now 1,374 (primevue 3.53's 292: 3,185). Its
    ``<script>`` blocks are read as their ``lang`` says, each symbol and debt note at its
    line in the file; a Vue options object's ``methods`` and ``computed`` are the file's
    functions, its watchers named by what they watch; the file is the module."""
    result = parse("vue", VUE_COMPONENT)
    assert (result.language, result.syntax_errors) == ("vue", 0)
    assert result.notes == ("<script lang='coffee'> left out: not a language recalld reads",)
    module, *symbols = result.symbols
    assert (module.qualname, module.start_line, module.end_line) == ("<module>", 1, 27)
    assert [(s.kind, s.qualname, s.start_line, s.end_line, s.signature, s.docstring) for s in symbols] == [
        ("function", "data", 8, 8, "data()", ""),
        ("function", "label", 9, 9, "label()", ""),
        ("function", "reset", 10, 10, "reset()", ""),
        ("function", "toggle", 10, 10, "toggle: function ()", ""),
        ("method", "watch.open", 11, 11, "open(value)", ""),
        ("method", 'watch."label.size"', 11, 11, "'label.size': function ()", ""),
        ("function", "increment", 17, 19, "function increment(by: number = 1): void", "Counts."),
        ("function", "reset#2", 20, 20, "function reset()", ""),  # both blocks define it
    ]  # fmt: skip
    assert [(d.kind, d.start_line, dict(d.extra)["enclosing"]) for d in result.derived] == [("todo", 18, "increment")]
    svelte = (b'<script context="module" lang="ts">\n  export function preload(page: string) { return page; }\n'
              b"</script>\n\n<script>\n  export let title;\n  const toggle = () => { open = !open; };\n</script>\n"
              b"\n<div on:click={toggle}>{title}</div>\n")  # fmt: skip
    assert [(s.qualname, s.start_line) for s in parse("svelte", svelte).symbols] == [
        ("<module>", 1), ("preload", 2), ("toggle", 7),
    ]  # fmt: skip
    assert [s.qualname for s in parse("vue", b"<template><p>no script</p></template>\n").symbols] == ["<module>"]
    astro = (b"---\nimport Layout from '../Layout.astro';\ninterface Props { title: string }\n"
             b"function formatDate(date: Date): string { return ''; }\n---\n<Layout><h1>{title}</h1></Layout>\n"
             b"<script>\n  function onClick(event: MouseEvent) {}\n</script>\n")  # fmt: skip
    astro_result = parse("astro", astro)  # its frontmatter and scripts are TypeScript
    assert [(s.qualname, s.start_line) for s in astro_result.symbols] == [
        ("<module>", 1), ("Props", 3), ("formatDate", 4), ("onClick", 8),
    ]  # fmt: skip
    assert astro_result.syntax_errors == 0


def test_a_computed_property_with_a_setter_and_a_watcher_with_options_are_functions_of_their_names():
    """A writable computed property (``model: { get() {…}, set(v) {…} }``) and a watcher
    written with its options (``value: { handler(v) {…}, deep: true }``) were no symbol,
    their code the file's: element-ui 1.4's checkbox lost its ``model``, primevue 4.5's 123
    components their watchers. Each is one function of its name, signed as written."""
    component = b"""<script>
export default defineComponent({
  computed: {
    /** What the checkbox holds. */
    model: {
      get() { return this.value; },
      set(value) { this.$emit('input', value); }
    },
    label: { get: function () { return 'x'; } },
  },
  watch: {
    activeIndex: {
      immediate: true,
      handler(index) { this.open = index; }
    },
    'options.size': { handler: function (size) {}, deep: true },
  },
});
</script>
"""
    symbols = parse("vue", component).symbols[1:]
    assert [(s.kind, s.qualname, s.start_line, s.end_line, s.signature, s.docstring) for s in symbols] == [
        ("function", "model", 5, 8, "model: { get() {…} }", "What the checkbox holds."),
        ("function", "label", 9, 9, "label: { get: function () {…} }", ""),
        ("method", "watch.activeIndex", 12, 15, "activeIndex: { immediate: true, handler(index) {…} }", ""),
        ("method", 'watch."options.size"', 16, 16, "'options.size': { handler: function (size) {…} }", ""),
    ]  # fmt: skip
    exported = component.split(b"<script>\n")[1].split(b"});")[0].replace(b"defineComponent(", b"") + b"};"
    assert [s.qualname for s in parse("javascript", exported, path="checkbox.js").symbols[1:]] == [
        "model", "label", "watch.activeIndex", 'watch."options.size"',
    ]  # fmt: skip


def test_names_and_debt_notes_two_blocks_repeat_are_numbered_apart():
    """A name one block repeats and another defines again, and one debt note written in
    both blocks, were given one qualified name twice (``reset#2``, ``<module>:todo:…``),
    which a file's memories cannot hold: each is numbered after what the blocks took."""
    svelte = (b'<script context="module">\n  function reset() {}\n  function reset() {}\n  // TODO: types\n'
              b"</script>\n<script>\n  function reset() {}\n  // TODO: types\n</script>\n")  # fmt: skip
    result = parse("svelte", svelte)
    assert [(s.name, s.qualname, s.start_line) for s in result.symbols[1:]] == [
        ("reset", "reset", 2), ("reset", "reset#2", 3), ("reset", "reset#3", 7),
    ]  # fmt: skip
    first, second = result.derived
    assert (second.qualname, second.name, second.start_line) == (f"{first.qualname}#2", f"{first.qualname}#2", 8)


def test_debt_notes_outside_the_code_are_the_modules():
    """A debt note in a component's markup or styles was lost, only its scripts' read
    (primevue 4.5's ``<!-- TODO: Deprecated since v4.0-->``, Starlight's ``/* HACK: … */``
    in a style): each is the module's, at its line; a ``/*`` in the markup's text is none."""
    component = b"""<template>
  <!-- TODO: Deprecated since v4.0-->
  <slot name="icon" />
  <p>{{ a }}</p> <!-- FIXME: not
       accessible -->
  <p>src/**/*.vue, a TODO: of the text */</p>
</template>
<script>
// TODO: in the script
export default { methods: { f() {} } };
</script>
<style>
li {
  /* HACK: keeps the margin inside. */
  padding-bottom: 1px;
}
</style>
"""
    result = parse("vue", component)
    assert [(d.kind, d.start_line, d.end_line, d.docstring, dict(d.extra)["enclosing"]) for d in result.derived] == [
        ("todo", 2, 2, "TODO: Deprecated since v4.0", ""),
        ("fixme", 4, 5, "FIXME: not accessible", ""),
        ("todo", 9, 9, "TODO: in the script", ""),
        ("hack", 14, 14, "HACK: keeps the margin inside.", ""),
    ]  # fmt: skip
    astro = b"---\nconst a = 1;\n---\n<div>{/* XXX: a card */}</div>\n"
    assert [(d.kind, d.start_line) for d in parse("astro", astro).derived] == [("xxx", 4)]


def test_a_props_default_or_validator_function_makes_the_prop_a_function_of_its_name():
    """A prop written with a ``default()`` or a ``validator(v)`` function was no symbol, its
    code the file's: element-ui 2.15's 116 components lost 59 (``avatar``'s ``size``), vuetify
    2.7's 27 (``VAlert``'s ``border``). As a watcher with options is, the prop is one function
    named by ``props`` (its name alone is its value's); a prop with no function none."""
    component = b"""<script>
export default {
  props: {
    size: {
      type: [Number, String],
      default() { return 1; },
      validator(val) { return val > 0; }
    },
    list: { type: Array, default: () => [] },
    kind: { type: String, default: 'a' },
    onClose: Function,
  },
};
</script>
"""
    symbols = parse("vue", component).symbols[1:]
    assert [(s.kind, s.qualname, s.start_line, s.end_line, s.signature) for s in symbols] == [
        ("method", "props.size", 4, 8, "size: { type: [Number, String], default() {…} }"),
        ("method", "props.list", 9, 9, "list: { type: Array, default: () => {…} }"),
    ]  # fmt: skip
    extended = b"export default mixins(Colorable).extend({\n  props: { border: { type: String, validator: v => !!v } },\n});\n"
    assert [s.qualname for s in parse("typescript", extended, path="VAlert.ts").symbols[1:]] == ["props.border"]


def test_a_line_comment_in_a_sass_less_or_stylus_style_is_read_for_debt_notes():
    """``// TODO: …`` in a ``<style lang="scss">`` (Sass's both syntaxes, Less and Stylus
    write ``//`` comments) was missed, only ``/* … */`` read there. In CSS ``//`` is no
    comment, and a string's or a ``url(…)``'s ``//`` is none in any of them."""
    component = b"""<template><p/></template>
<style lang="scss" scoped>
// TODO: drop with the old grid
.a { background: url(//cdn.example/TODO: x.png); content: "// FIXME: text"; }
.b { /* HACK: block */ color: red; } // XXX: trailing
</style>
<style>
.c { background: url(//cdn.example/c.png); } // FIXME: css has no line comment
</style>
"""
    assert [(d.kind, d.start_line, d.docstring) for d in parse("vue", component).derived] == [
        ("todo", 3, "TODO: drop with the old grid"),
        ("hack", 5, "HACK: block"),
        ("xxx", 5, "XXX: trailing"),
    ]  # fmt: skip
