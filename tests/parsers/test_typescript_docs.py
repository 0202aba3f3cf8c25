"""TypeScript docs beside the comments that speak to a tool (``parsers/docstrings.py``)."""

from __future__ import annotations

from recalld.parsers import parse

# effect's ``ai/Chat.ts``: its language service plugin's directive between a class's doc and the class
CHAT = b"""/**
 * Service tag for persistence-backed AI conversation storage.
 *
 * @since 4.0.0
 */
// @effect-diagnostics effect/leakingRequirements:off
export class Persistence extends Context.Service<Persistence, Service>()("effect/ai/Chat/Persisted") {}
// @effect-diagnostics-next-line floatingEffect:off
export const run = () => Effect.void
"""


def test_effects_diagnostics_directive_is_no_documentation():
    docs = [(s.qualname, s.docstring) for s in parse("typescript", CHAT).symbols[1:]]
    assert docs == [("Persistence", "Service tag for persistence-backed AI conversation storage.\n\n@since 4.0.0"),
                    ("run", "")]  # fmt: skip
