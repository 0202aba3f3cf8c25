"""Single-file components in a real repository: their scripts' symbols are memories of
the component, and a function moved out of one into a module keeps its lineage."""

from __future__ import annotations

from tests.ingest.conftest import Harness

COUNTER = """<template>
  <button @click="increment">{{ count }}</button>
</template>

<script setup lang="ts">
import { ref } from 'vue'
const count = ref(0)

/** Adds one, or more, to the count. */
function increment(by: number = 1): void {
  count.value += by
  console.log('incremented by', by)
}
</script>
"""


def test_a_components_functions_are_its_memories_and_keep_their_lineage_when_moved_out(git_repo, tmp_path):
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("src/Counter.vue", COUNTER)
        git_repo.commit("counter")
        h.sync(git_repo)
        (before,) = [m for m in h.memories(types=("structural",)) if m.payload["qualname"] == "increment"]
        assert (before.payload["language"], before.payload["path"]) == ("vue", "src/Counter.vue")
        assert (before.payload["start_line"], before.payload["end_line"]) == (10, 13)
        # the function moves out to a composable (TypeScript), unchanged; the component imports it
        function = COUNTER[COUNTER.index("/** Adds") : COUNTER.index("</script>")]
        git_repo.write("src/useCounter.ts", "export " + function)
        importing = COUNTER.replace(function, "").replace("import {", "import { increment } from './useCounter'\nimport {")
        git_repo.write("src/Counter.vue", importing)
        git_repo.commit("move increment to a composable")
        h.sync(git_repo)
        (after,) = [m for m in h.memories(types=("structural",)) if m.payload["qualname"] == "increment"]
        assert (after.payload["language"], after.payload["path"]) == ("typescript", "src/useCounter.ts")
        assert after.payload["lineage"] == before.payload["lineage"]
        closed = [m for m in h.memories(deprecated=1) if m.id == before.id]
        assert closed and closed[0].payload["deprecated_reason"] == "renamed"
    finally:
        h.close()


DEFINED = """<template>
  <button @click="increment">{{ count }}</button>
</template>

<script lang="ts">
import { defineComponent } from 'vue'

export default defineComponent({
  data() {
    return { count: 0 }
  },
  methods: {
    /** Adds one to the count. */
    increment(): void {
      this.count += 1
    },
  },
})
</script>
"""


def test_the_functions_of_an_options_object_a_call_makes_the_export_of_are_the_components(git_repo, tmp_path):
    """Vue's ``export default defineComponent({…})`` (in a component, and in a TypeScript
    module) gives the functions its options object gives, as ``export default {…}`` does."""
    h = Harness("edge", tmp_path / "state")
    try:
        git_repo.write("src/Counter.vue", DEFINED)
        script = DEFINED[DEFINED.index("import") : DEFINED.index("</script>")]
        git_repo.write("src/counter.ts", script.replace("increment", "decrement").replace("+=", "-="))
        git_repo.commit("components defined by a call")
        h.sync(git_repo)
        found = {(m.payload["path"], m.payload["qualname"]): m.payload for m in h.memories(types=("structural",))}
        assert set(found) - {(p, "<module>") for p in ("src/Counter.vue", "src/counter.ts")} == {
            ("src/Counter.vue", "data"), ("src/Counter.vue", "increment"),
            ("src/counter.ts", "data"), ("src/counter.ts", "decrement"),
        }  # fmt: skip
        increment = found[("src/Counter.vue", "increment")]
        assert (increment["kind"], increment["signature"], increment["docstring"]) == (
            "function", "increment(): void", "Adds one to the count."
        )
        assert (increment["start_line"], increment["end_line"]) == (14, 16)
        git_repo.write("src/Counter.vue", DEFINED.replace("+= 1", "+= 2"))
        git_repo.commit("by two")
        h.sync(git_repo)
        (edited,) = [m.payload for m in h.memories(types=("structural",)) if m.payload["qualname"] == "increment"]
        assert (edited["lineage"], edited["change"]) == (increment["lineage"], "modified")
    finally:
        h.close()
