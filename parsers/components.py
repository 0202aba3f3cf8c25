"""Single-file components (Vue's ``.vue``, Svelte's ``.svelte``, Astro's ``.astro``): the
code of their ``<script>`` blocks, read by the block's own language (``lang="ts"``:
TypeScript's grammar and queries), and Astro's frontmatter (TypeScript), each symbol and
debt note at its line in the file. The file is the module; its template and styles are
its text, and its keywords.

A block that loads its code from elsewhere (``src="./Button.ts"``) holds none; one in
a language recalld does not read (``lang="coffee"``) is noted and left out.
"""

from __future__ import annotations

import dataclasses
import re

from recalld.parsers.base import ParseResult, Symbol, module_symbol
from recalld.parsers.c_tokens import blank_lines
from recalld.parsers.debt import MARKER_BYTES, Comment, debt_entries
from recalld.parsers.extract import extract as extract_code
from recalld.parsers.registry import LanguageSpec, get_language

# A top-level block: its opening tag's attributes and its content. A component's blocks
# sit at the top of the file; a ``</script>`` inside a string of the code would end it
# for the browser too.
_SCRIPT = re.compile(rb"<script\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>(.*?)</script\s*>", re.S | re.I)
_ATTRIBUTE = re.compile(rb"""\b([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_COMMENT = re.compile(rb"<!--.*?-->", re.S)
_REPEAT = re.compile(r"#\d+$")  # a repeat's number: ``reset#2``
SCRIPT_LANGUAGES = {
    "js": "javascript",
    "javascript": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "typescript": "typescript",
    "tsx": "tsx",
}
# Comments outside the code: the markup's (``<!-- TODO: … -->``), a markup expression's
# (Astro's and Svelte's ``{/* … */}``) and a style's (``/* FIXME */``).
_MARKUP_COMMENT = re.compile(rb"<!--(.*?)-->|\{\s*(/\*.*?\*/)\s*\}", re.S)
_STYLE = re.compile(rb"<style\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>(.*?)</style\s*>", re.S | re.I)
_STYLE_COMMENT = re.compile(rb"/\*.*?\*/", re.S)
# A style language that also writes ``//`` to the line's end (Sass's both syntaxes, Less,
# Stylus; CSS does not): its comments, a string's ``//`` and ``url(//cdn…)`` none of them.
LINE_COMMENT_STYLES = frozenset({"scss", "sass", "less", "stylus", "styl"})
_STYLE_LINE_COMMENT = re.compile(
    rb"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|\burl\([^)\n]*\)", re.S | re.I
)


# Astro's frontmatter: the code between the ``---`` fences that open the file.
_FRONTMATTER = re.compile(rb"\A\s*---[ \t]*\n(.*?)^---[ \t]*$", re.S | re.M)
# A format whose scripts are TypeScript unless they say otherwise (Astro compiles them so).
DEFAULT_SCRIPT = {"astro": "typescript"}


def extract(spec: LanguageSpec, data: bytes, path: str = "") -> ParseResult:
    symbols: list[Symbol] = []
    derived: list[Symbol] = []
    blocks, notes = _code_blocks(spec.name, data)
    errors = 0
    for start, end, language in blocks:
        offset = data.count(b"\n", 0, start)
        code = extract_code(get_language(language), data[start:end], path)
        errors += code.syntax_errors
        symbols.extend(_moved(s, offset) for s in code.symbols[1:])
        derived.extend(_moved(d, offset) for d in code.derived)
    derived.extend(_markup_debt(spec.name, data, blocks))
    derived.sort(key=lambda d: d.start_line)
    symbols = [module_symbol(data), *_told_apart(symbols)]
    return ParseResult(spec.name, tuple(symbols), syntax_errors=errors, notes=tuple(notes),
                       derived=tuple(_told_apart(derived, named_by_qualname=True)))


def _code_blocks(format_name: str, data: bytes) -> tuple[list[tuple[int, int, str]], list[str]]:
    """Where the file's code lies (start, end, language), in file order, and what was left out."""
    blocks: list[tuple[int, int, str]] = []
    notes: list[str] = []
    front = _FRONTMATTER.match(data) if format_name in DEFAULT_SCRIPT else None
    if front is not None:
        blocks.append((front.start(1), front.end(1), DEFAULT_SCRIPT[format_name]))
    for match in _SCRIPT.finditer(_COMMENT.sub(_blank, data), front.end() if front is not None else 0):
        attributes = _attributes(match.group(1))
        if "src" in attributes:
            continue
        written = attributes.get("lang", "").lower()
        language = DEFAULT_SCRIPT.get(format_name, "javascript") if not written else SCRIPT_LANGUAGES.get(written)
        if language is None:
            notes.append(f"<script lang={attributes['lang']!r}> left out: not a language recalld reads")
            continue
        blocks.append((match.start(2), match.end(2), language))
    return blocks, notes


def _markup_debt(format_name: str, data: bytes, blocks: list[tuple[int, int, str]]) -> tuple[Symbol, ...]:
    """The debt notes of the file's comments outside its code, the module's: primevue 4.5's
    ``<!-- TODO: Deprecated since v4.0-->`` over a slot, Starlight's ``/* HACK: … */`` in a
    style."""
    markup = bytearray(data)
    for start, end, _ in blocks:
        markup[start:end] = blank_lines(data[start:end])
    if not MARKER_BYTES.search(markup):
        return ()
    found = [m.span(1 if m.group(1) is not None else 2) for m in _MARKUP_COMMENT.finditer(markup)]
    for style in _STYLE.finditer(markup):
        found += _style_comments(markup, style)
    return debt_entries(format_name, [_comment(data, start, end) for start, end in sorted(found)], ())


def _style_comments(markup: bytes | bytearray, style: re.Match[bytes]) -> list[tuple[int, int]]:
    """Where a ``<style>`` block's comments are: ``/* … */``, and ``//`` to the line's end in
    a language that writes it (``lang="scss"``: ``// TODO: …`` above a rule), a string's and
    a ``url(…)``'s ``//`` read past."""
    lines = _attributes(style.group(1)).get("lang", "").lower() in LINE_COMMENT_STYLES
    pattern = _STYLE_LINE_COMMENT if lines else _STYLE_COMMENT
    found = pattern.finditer(markup, style.start(2), style.end(2))
    return [m.span() for m in found if m.group(0).startswith((b"/*", b"//"))]


def _comment(data: bytes, start: int, end: int) -> Comment:
    line_start = data.rfind(b"\n", 0, start) + 1
    text = data[start:end].decode("utf-8", "replace")
    trailing = bool(data[line_start:start].strip().removesuffix(b"<!--").removesuffix(b"{").strip())
    return Comment(start, data.count(b"\n", 0, start) + 1, start - line_start, text, trailing)


def _blank(comment: re.Match[bytes]) -> bytes:
    """An HTML comment as spaces and its line breaks: a ``<script>`` commented out holds
    no code, and what follows keeps its offsets."""
    return blank_lines(comment.group(0))


def _attributes(text: bytes) -> dict[str, str]:
    found = {}
    for match in _ATTRIBUTE.finditer(text):
        value = next((v for v in match.groups()[1:] if v is not None), b"")
        found[match.group(1).decode("ascii", "replace").lower()] = value.decode("utf-8", "replace")
    for bare in re.findall(rb"(?:^|\s)([\w:-]+)(?=\s|$)", _ATTRIBUTE.sub(b" ", text)):
        found.setdefault(bare.decode("ascii", "replace").lower(), "")  # ``setup``, ``context``
    return found


def _moved(symbol: Symbol, lines: int) -> Symbol:
    return dataclasses.replace(symbol, start_line=symbol.start_line + lines, end_line=symbol.end_line + lines)


def _told_apart(symbols: list[Symbol], *, named_by_qualname: bool = False) -> list[Symbol]:
    """Names two blocks both define (Vue's ``<script>`` and ``<script setup>``) numbered
    as repeats in one file are: ``#2`` for the later, or the next number no block took
    (a block's own ``reset`` and ``reset#2``, then another's ``reset``: ``reset#3``); so
    are debt notes of one text (``<module>:todo:…#2``), which their qualname names."""
    told: set[tuple[str, str]] = set()
    kept: list[Symbol] = []
    for symbol in symbols:
        name, count = symbol.qualname, 1
        while (symbol.kind, name) in told:
            count += 1
            name = f"{_REPEAT.sub('', symbol.qualname)}#{count}"
        told.add((symbol.kind, name))
        if name != symbol.qualname:
            symbol = dataclasses.replace(symbol, qualname=name, name=name if named_by_qualname else symbol.name)
        kept.append(symbol)
    return kept
