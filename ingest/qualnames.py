"""Reading a qualified name as extraction writes it: the scope it is declared in, the
name it is declared with, what extraction appends to tell namesakes apart (parameter
types, ``#2``, a Rust trait impl's trait), and the words of its name, for the planner's
pairing (``ingest/likeness.py``, ``follow.py``, ``moves.py``, ``namesake.py``)."""

from __future__ import annotations

import re
from functools import lru_cache

from recalld.ingest.sparse import STOPWORDS, identifier_words
from recalld.parsers.registry import BUILTIN_LANGUAGES

# The words that name a class's own methods beside its instances' (``LanguageSpec.singletons``).
CLASS_WORDS = frozenset(spec.singletons for spec in BUILTIN_LANGUAGES if spec.singletons)

# What extraction appends to a qualname to tell repeats apart: parameter types, with a Java
# method's return type where a constructor has its name and types (``E(): void``), and "#2".
_TYPES = r"\(.*\)(?:: [^#()]+)?"
_DECORATED = re.compile(rf"([^(]+?)(?:{_TYPES})?(?:#\d+)?")
_PARAMETERS, _REPEAT = re.compile(rf"{_TYPES}(?:#\d+)?"), re.compile(r"#\d+$")
# What may make a dot part of a name: a computed name (``[Symbol.iterator]``), a quoted one,
# a C++ template's arguments (``AcceptImpl<R C::*, Args...>``).
_COMPUTED, _QUOTES = re.compile(r"[\[\"'`<]"), "\"'`"
_OPEN, _CLOSE = "[<", "]>"


def unnumbered(qualname: str) -> str:
    """A qualified name without the mark extraction gives a repeat of it (``close#3``)."""
    return _REPEAT.sub("", qualname)


def declared_words(qualname: str) -> set[str]:
    """The words of the name a qualified name is declared with (none for an empty one),
    each in the singular, but those that tell nothing (``sparse.STOPWORDS``): hugo's
    ``ShortcodeWithPage`` and ``pageWithWeight0`` share, beside "with", only "page",
    which many scopes of that release bear; webpack 5's ``NamedModulesPlugin`` and
    ``NamedModuleIdsPlugin`` share "named", "module" and "plugin"."""
    return {singular(word) for word in identifier_words(short_name(qualname))} - STOPWORDS


def singular(word: str) -> str:
    """An English plural's singular, by its ending alone (``dependencies``, ``classes``,
    ``modules``, ``ids``); a word of another ending is itself (``status``, ``analysis``,
    ``class``). Both names of a compared pair are read so, so a wrong singular of a word
    that is no plural (``series`` → ``sery``) costs nothing."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(_ES_PLURALS):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith(_NOT_PLURALS):
        return word[:-1]
    return word


_ES_PLURALS = ("sses", "xes", "ches", "shes", "zzes")
_NOT_PLURALS = ("ss", "us", "is")


def alike_names(old: str, new: str) -> bool:
    """Whether two scopes' names are half the same words or more: webpack 5's
    ``DelegatedExportsDependency`` and ``StaticExportsDependency``,
    ``ReadFileCompileWasmTemplatePlugin`` and its successor ``ReadFileCompileWasmPlugin``."""
    words, other = declared_words(old), declared_words(new)
    return 2 * len(words & other) >= len(words | other) > 0


def parent_scope(qualname: str) -> str:
    """The scope a symbol is declared in: ``Parser`` for ``Parser.parse(java.io.Reader)``."""
    return _parts(qualname)[0]


def decoration(qualname: str) -> str:
    """What follows a qualname's declared name: ``(Reader, int)``, ``#2``, or nothing; for
    a Rust trait impl's member the trait before it (`` as Display`` of ``<Arg as Display>.fmt``)."""
    return _parts(qualname)[2]


def member_of(qualname: str) -> tuple[str, str]:
    """The scope and name of a member as its code declares them, whatever extraction's
    naming marks of its role: a class's own method's word (``Base.self.controller_path``,
    ``DateFormatter.static.formatDate``: declared in ``Base``, ``DateFormatter``) and a
    setter's ``=`` (``Box.value=``: ``value``), besides what ``short_name`` leaves out.
    For the planner's pairing of code unchanged to the letter whose name an extractor of
    another version marks otherwise (it was ``Base.controller_path#2``, ``Box.value#2``)."""
    scope, short, _decoration = _parts(qualname)
    outer, _dot, last = scope.rpartition(".")
    return (outer if last in CLASS_WORDS else scope), short.removesuffix("=")


def short_name(qualname: str) -> str:
    """The name a symbol is declared with: ``parse`` for ``Parser.parse``, for an overload
    named by its parameters (``Parser.parse(java.io.Reader)``) and for a repeat
    (``Parser.parse#2``), so a symbol that only gained or lost that mark is the same."""
    return _parts(qualname)[1]


@lru_cache(maxsize=1 << 16)
def _parts(qualname: str) -> tuple[str, str, str]:
    """A qualname's scope, declared name and decoration. Only a dot outside a computed or
    a quoted name separates scopes: ``Vector3.[Symbol.iterator]`` is declared in
    ``Vector3``, an eslint rule's visitor ``create."MemberExpression > Identifier.property"``
    in ``create``. A bracket or quote that does not close is read as a character (a Rust
    lifetime: ``'a str.deserialize``). A Rust trait impl's member is its type's, as its
    inherent members are: ``<Arg as Display>.fmt`` is declared in ``Arg``, like ``Arg.new``."""
    trait_impl = _trait_impl(qualname)
    if trait_impl is not None:  # the trait tells it apart from its type's namesakes
        scope, mark, member = trait_impl
        _scope, short, decoration = _parts(member)
        return scope, short, f"{mark}{decoration}"
    found = _scan(qualname) if _COMPUTED.search(qualname) else None
    if found is None:
        declared = _DECORATED.fullmatch(qualname)
        name = declared.group(1) if declared else qualname
        scope, _dot, short = name.rpartition(".")
        return scope, short, qualname[len(name) :]
    end, dot = found
    return qualname[:dot] if dot >= 0 else "", qualname[dot + 1 : end], qualname[end:]


def _trait_impl(qualname: str) -> tuple[str, str, str] | None:
    """For a member of a Rust trait impl (``tests.<Arg as PartialEq<(u8, u8)>>.eq#2``),
    its type's scope (``tests.Arg``), what tells the impl apart (`` as PartialEq<(u8,
    u8)>``) and the rest (``eq#2``); else None. One implemented for a reference is its
    type's, the reference told after its trait (``<&mut FlatSet as IntoIterator>.into_iter``:
    ``FlatSet``, `` as IntoIterator for &mut``); one for some type arguments (``<Cursor<Vec<u8>>
    as AsyncWrite>``, an inherent ``<Point<f32>>.norm``) its type's, the arguments told first
    (``Cursor``, ``<Vec<u8>> as AsyncWrite``; ``Point``, ``<f32>``)."""
    if " as " not in qualname and ">>." not in qualname:
        return None
    start = qualname.rfind(".<") + 1 if not qualname.startswith("<") else 0
    if qualname[start : start + 1] != "<":
        return None
    depth = 0
    for index in range(start, len(qualname)):
        depth += {"<": 1, ">": -1}.get(qualname[index], 0)
        if depth == 0:
            segment, rest = qualname[start + 1 : index], qualname[index + 1 :]
            implementer, as_, trait = segment.partition(" as ")
            if not rest.startswith(".") or not (as_ or implementer.endswith(">")):
                return None
            owner = implementer.removeprefix("&").removeprefix("mut ")  # ``<&mut FlatSet as …>``: ``FlatSet``'s
            mark = f" as {trait}" if as_ else ""
            if owner != implementer:
                mark = f"{mark} for {implementer[: len(implementer) - len(owner)].strip()}"
            owner, bracket, arguments = owner.partition("<")
            return qualname[:start] + owner, bracket + arguments + mark, rest[1:]
    return None


def _scan(qualname: str) -> tuple[int, int] | None:
    """Where a qualname with brackets or quotes ends its declared name (at a ``(``
    outside them that opens parameters to its end, or at a final ``#2``) and its last
    dot outside them before that (-1: none); None when they do not close (C++'s
    ``operator<``: read as a name without them)."""
    index, depth, dot = 0, 0, -1
    while index < len(qualname):
        char = qualname[index]
        if char in _QUOTES and (index == 0 or qualname[index - 1] in ".["):
            index = _quote_end(qualname, index)
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE and depth:
            depth -= 1
        elif char == "." and not depth:
            dot = index
        elif char == "(" and not depth and _PARAMETERS.fullmatch(qualname, index):
            return index, dot
        index += 1
    if depth:
        return None
    repeat = _REPEAT.search(qualname)
    return (repeat.start() if repeat else len(qualname)), dot


def _quote_end(qualname: str, start: int) -> int:
    """The index of the quote closing the quoted name opened at ``start`` (one that a dot,
    a bracket, the parameters, a repeat mark or the end follows), or ``start`` when none."""
    close = qualname.find(qualname[start], start + 1)
    while close > 0:
        if close + 1 == len(qualname) or qualname[close + 1] in ".]([#":
            return close
        close = qualname.find(qualname[start], close + 1)
    return start
