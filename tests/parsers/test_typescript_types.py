"""The methods of the object types a TypeScript type alias is made of (``parsers/extract.py``)."""

from __future__ import annotations

from recalld.parsers import parse

# redux-toolkit's ``createAsyncThunk.ts`` and ``query/core/buildInitiate.ts``: an object type
# intersected with others
THUNK = b"""export type AsyncThunkOptions<ThunkArg = void> = {
  /** Whether the thunk runs. */
  condition?(arg: ThunkArg): boolean
} & IsUnknown<ThunkArg, { idGenerator?: () => string }>
type AnyActionCreatorResult = SafePromise<any> &
  QueryActionCreatorFields & {
    unwrap(): Promise<any>
  }
type Variants = { left(): void } | { right(): void }
"""


def test_the_methods_of_an_object_type_intersected_with_others_are_the_aliases():
    symbols = [(s.kind, s.qualname, s.start_line, s.docstring) for s in parse("typescript", THUNK).symbols[1:]]
    assert symbols == [
        ("type", "AsyncThunkOptions", 1, ""),
        ("method", "AsyncThunkOptions.condition", 3, "Whether the thunk runs."),
        ("type", "AnyActionCreatorResult", 5, ""),
        ("method", "AnyActionCreatorResult.unwrap", 7, ""),
        ("type", "Variants", 9, ""),  # a union's: each member's methods are one variant's
    ]
