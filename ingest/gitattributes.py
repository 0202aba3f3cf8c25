"""A path's git attributes at a commit, worked out as git works them out (gitattributes(5))
from the commit's own ``.gitattributes`` files, the repository's ``info/attributes`` and the
user's global file: never the index or the work tree, so what a commit's files are depends
on the commit alone. libgit2's lookup reads the index before the commit, so a checkout
elsewhere than the tracked branch had its ``.gitattributes`` decide for the branch's commits.

Patterns are gitignore's (git's ``wildmatch`` with its ``**`` and character classes, a
pattern without a slash matching the name at any depth, a leading slash anchoring it to the
file's folder); negative patterns are ignored, and one ending in a slash names a folder,
which is never a file. Precedence is git's: ``info/attributes`` over a file's own folder,
over its parent folders up to the root, over the global file; a later line over an earlier
one; a macro (``[attr]name …``, in the root file, ``info/attributes`` or the global file;
``binary`` built in) set on a path sets what it stands for."""

from __future__ import annotations

import hashlib
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from recalld.ingest.wildmatch import WILDCARD, Matcher, compile_pattern

Value = str | bool  # True: set ("name"), False: unset ("-name"), else its value ("name=value")
States = tuple[tuple[str, Value | None], ...]  # None: "!name", made unspecified

BLANK = b" \t\r\n"
MAX_LINE = 2048  # git ignores longer lines (and files over 100 MB)
MAX_FILE = 100 * 1024 * 1024
MACRO_PREFIX = b"[attr]"
BUILTIN = b"[attr]binary -diff -merge -text"
_NAME = re.compile(rb"(?!-)[-A-Za-z0-9_.]+\Z")
_UNQUOTE = {ord(k): v for k, v in zip('\\"abfnrtv', b'\\"\a\b\f\n\r\t\v', strict=True)}
COMMITS_KEPT = 4
FILES_KEPT = 512


@dataclass(frozen=True, slots=True)
class Rule:
    """One line of an attributes file: what it matches (None for a macro's definition, a
    literal pattern's or one that matches nothing), the macro it defines, and its states
    in order (None: ``!name``, made unspecified)."""

    pattern: Matcher | None
    basename: bool  # the pattern has no slash: it matches a file's name at any depth
    macro: str | None
    states: States
    literal: bytes | None = None  # the one name or path a pattern without wildcards matches (case folded)


class Layer:
    """One attributes file's rules and the folder they are relative to (b"" the root).
    Patterns without wildcards are looked up by the name or path they match (Git LFS
    lists files one a line: 20,000 such lines took 7.6 ms a path when each was tried)."""

    __slots__ = ("folder", "rules", "fold", "checks", "literal")

    def __init__(self, folder: bytes, rules: tuple[Rule, ...], *, fold: bool = False) -> None:
        self.folder = folder
        self.rules = rules
        self.fold = fold
        self.checks: list[tuple[int, Matcher, bool, States]] = []  # last line first
        self.literal: dict[tuple[bool, bytes], list[tuple[int, States]]] = {}
        for line, rule in enumerate(rules):
            if rule.literal is not None:
                self.literal.setdefault((rule.basename, rule.literal), []).append((line, rule.states))
            elif rule.pattern is not None:
                self.checks.insert(0, (line, rule.pattern, rule.basename, rule.states))

    def matching(self, name: bytes, relative: bytes) -> list[States]:
        """The states of the lines that match a file, last line first."""
        found = [(line, states) for line, match, whole, states in self.checks if match(name if whole else relative)]
        if self.literal:
            fold = bytes.lower if self.fold else bytes
            found += self.literal.get((True, fold(name)), []) + self.literal.get((False, fold(relative)), [])
            found.sort(key=lambda hit: -hit[0])
        return [states for _, states in found]


def parse(text: bytes, *, macros: bool, ignore_case: bool = False) -> tuple[Rule, ...]:
    """An attributes file's rules; lines git ignores (bad names, negative patterns, macros
    where ``macros`` is false, lines over 2,048 bytes) are left out."""
    if len(text) > MAX_FILE:
        return ()
    text = text.split(b"\0", 1)[0].removeprefix(b"\xef\xbb\xbf")
    rules = (_rule(line, macros=macros, ignore_case=ignore_case) for line in text.split(b"\n"))
    return tuple(rule for rule in rules if rule is not None)


def _rule(line: bytes, *, macros: bool, ignore_case: bool) -> Rule | None:
    start = line.lstrip(BLANK)
    if not start or start.startswith(b"#") or len(line) >= MAX_LINE:
        return None
    quoted = _unquote(start) if start.startswith(b'"') else None
    if quoted is not None:
        name, states = quoted
    else:
        name = re.split(rb"[ \t\r\n]", start, maxsplit=1)[0]
        states = start[len(name) :]
    macro = None
    if name.startswith(MACRO_PREFIX) and len(name) > len(MACRO_PREFIX):
        if not macros:
            return None
        macro_name = name[len(MACRO_PREFIX) :].lstrip(BLANK)
        macro_name = re.split(rb"[ \t\r\n]", macro_name, maxsplit=1)[0]
        if not _NAME.match(macro_name):
            return None
        macro = macro_name.decode()
    parsed = _states(states)
    if parsed is None:
        return None
    if macro is not None:
        return Rule(None, False, macro, parsed)
    if name.startswith(b"!"):  # git: "Negative patterns are ignored in git attributes"
        return None
    if not WILDCARD.search(name) and not name.endswith(b"/"):  # matched by what it says
        literal = name.lower() if ignore_case else name
        basename = b"/" not in name
        return Rule(None, basename, None, parsed, literal if basename else literal.removeprefix(b"/"))
    pattern, basename = compile_pattern(name, ignore_case=ignore_case)
    return Rule(pattern, basename, None, parsed)


def _unquote(text: bytes) -> tuple[bytes, bytes] | None:
    """A C-style quoted pattern and the text after its closing quote, or None where the
    quoting is broken (git then reads the token as written)."""
    out = bytearray()
    i = 1
    while i < len(text):
        c = text[i]
        if c == 0x22:
            return bytes(out), text[i + 1 :]
        if c != 0x5C:
            out.append(c)
            i += 1
            continue
        escaped = text[i + 1 : i + 2]
        if escaped and escaped[0] in _UNQUOTE:
            out.append(_UNQUOTE[escaped[0]])
            i += 2
        elif re.fullmatch(rb"[0-3][0-7][0-7]", text[i + 1 : i + 4]):
            out.append(int(text[i + 1 : i + 4], 8))
            i += 4
        else:
            return None
    return None


def _states(text: bytes) -> States | None:
    """``name``, ``-name``, ``!name``, ``name=value``; None where one is not a valid name
    (git drops the whole line)."""
    states: list[tuple[str, Value | None]] = []
    for token in re.split(rb"[ \t\r\n]+", text.strip(BLANK)):
        if not token:
            continue
        name, equals, value = token.partition(b"=")
        sign = name[:1]
        if sign in (b"-", b"!"):
            name = name[1:]
        if not _NAME.match(name):
            return None
        state: Value | None = False if sign == b"-" else None if sign == b"!" else True
        if sign not in (b"-", b"!") and equals:
            state = value.decode("utf-8", "replace")
        states.append((name.decode(), state))
    return tuple(states)


def evaluate(path: str, layers: Sequence[Layer], macros: Mapping[str, Rule]) -> dict[str, Value]:
    """The attributes ``layers`` (lowest precedence first) give ``path``: each decided by
    the first rule that names it, from the top layer's last line down; unspecified ones
    are left out."""
    raw = path.encode("utf-8", "surrogateescape")
    name = raw.rsplit(b"/", 1)[-1]
    decided: dict[str, Value | None] = {}
    for layer in reversed(layers):
        for states in layer.matching(name, raw[len(layer.folder) + 1 :] if layer.folder else raw):
            _fill(states, decided, macros)
    return {key: value for key, value in decided.items() if value is not None}


def _fill(states: States, decided: dict[str, Value | None], macros: Mapping[str, Rule]) -> None:
    """Decide what ``states`` decide first, last one first; a macro set expands where it
    is set, before the states left of it (a stack, not recursion: a chain of macros may be
    thousands long)."""
    stack = [reversed(states)]
    while stack:
        for name, value in stack[-1]:
            if name in decided:
                continue
            decided[name] = value
            macro = macros.get(name)
            if macro is not None and value is True:
                stack.append(reversed(macro.states))
                break
        else:
            stack.pop()


def macros_of(layers: Sequence[Layer]) -> dict[str, Rule]:
    """Each macro's definition: the last of the highest layer that defines it."""
    found: dict[str, Rule] = {}
    for layer in reversed(layers):
        for rule in reversed(layer.rules):
            if rule.macro is not None:
                found.setdefault(rule.macro, rule)
    return found


FolderFile = Callable[[str, str], tuple[str, bytes] | None]  # (commit, folder) → (blob id, text)


class CommitAttributes:
    """The attributes of one commit's paths (``of``), its folders' rules read once."""

    def __init__(self, commit: str, owner: RepositoryAttributes, outside: tuple[Layer, Layer]) -> None:
        self._commit = commit
        self._owner = owner
        self.outside = outside
        self._below, self._above = outside  # the global file; info/attributes
        root = self._tree_layer("")
        self._chains: dict[str, tuple[Layer, ...]] = {"": (root,) if root else ()}
        self.macros = macros_of((owner.builtin, self._below, *self._chains[""], self._above))
        self._last: tuple[str, dict[str, Value]] | None = None

    def of(self, path: str) -> dict[str, Value]:
        """The path's attributes: set (True), unset (False) or a value; unspecified ones left out."""
        if self._last is not None and self._last[0] == path:
            return self._last[1]
        folder = path.rpartition("/")[0]
        layers = (self._owner.builtin, self._below, *self._chain(folder), self._above)
        found = evaluate(path, layers, self.macros)
        self._last = (path, found)
        return found

    def _chain(self, folder: str) -> tuple[Layer, ...]:
        """The layers of ``folder``'s .gitattributes and its parents', the root's first:
        from the nearest folder read before, down (a loop: a path may be thousands deep)."""
        missing = []
        while folder not in self._chains:
            missing.append(folder)
            folder = folder.rpartition("/")[0]
        chain = self._chains[folder]
        for below in reversed(missing):
            own = self._tree_layer(below)
            chain = self._chains[below] = (*chain, own) if own else chain
        return chain

    def _tree_layer(self, folder: str) -> Layer | None:
        found = self._owner.folder_file(self._commit, folder)
        if found is None:
            return None
        rules = self._owner.rules(found[0], found[1], macros=not folder)
        return Layer(folder.encode("utf-8", "surrogateescape"), rules, fold=self._owner.ignore_case) if rules else None


class RepositoryAttributes:
    """Attributes at any commit of one repository: the rules of each ``.gitattributes``
    blob parsed once, the files outside the tree read again when they change."""

    def __init__(self, folder_file: FolderFile, outside: tuple[Path, Path], *, ignore_case: bool) -> None:
        self.folder_file = folder_file
        self._outside_paths = tuple(map(str, outside))
        self.ignore_case = ignore_case
        self.builtin = Layer(b"", parse(BUILTIN, macros=True))
        self._commits: OrderedDict[str, CommitAttributes] = OrderedDict()
        self._parsed: OrderedDict[tuple[str, bool], tuple[Rule, ...]] = OrderedDict()
        self._outside: tuple[tuple[tuple[int, ...], ...], tuple[Layer, Layer]] | None = None

    def at(self, commit: str) -> CommitAttributes:
        outside = self._outside_layers()
        found = self._commits.get(commit)
        if found is None or found.outside is not outside:
            found = self._commits[commit] = CommitAttributes(commit, self, outside)
            while len(self._commits) > COMMITS_KEPT:
                self._commits.popitem(last=False)
        self._commits.move_to_end(commit)
        return found

    def rules(self, key: str, text: bytes, *, macros: bool) -> tuple[Rule, ...]:
        found = self._parsed.get((key, macros))
        if found is None:
            found = self._parsed[(key, macros)] = parse(text, macros=macros, ignore_case=self.ignore_case)
            while len(self._parsed) > FILES_KEPT:
                self._parsed.popitem(last=False)
        return found

    def _outside_layers(self) -> tuple[Layer, Layer]:
        """The global file and info/attributes as layers, read again when either changes
        (a stat of each a lookup)."""
        paths = self._outside_paths
        signature = tuple(_signature(path) for path in paths)
        if self._outside is None or self._outside[0] != signature:
            below, above = (_read_outside(path, ignore_case=self.ignore_case) for path in paths)
            fold = self.ignore_case
            self._outside = (signature, (Layer(b"", below, fold=fold), Layer(b"", above, fold=fold)))
        return self._outside[1]


def _signature(path: str) -> tuple[int, ...]:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return ()
    return (found.st_mtime_ns, found.st_size, found.st_ino)


def _read_outside(path: str, *, ignore_case: bool) -> tuple[Rule, ...]:
    try:
        return parse(Path(path).read_bytes(), macros=True, ignore_case=ignore_case)
    except (OSError, ValueError):
        return ()


def beside_files(configured: str | None, common_dir: str) -> tuple[Path, Path]:
    """The attribute files git applies besides the committed .gitattributes: the user's
    global file (``core.attributesFile``, ``configured``, else ``git/attributes`` under
    ``$XDG_CONFIG_HOME`` or ``~/.config``) and the repository's ``info/attributes``."""
    config_home = os.environ.get("XDG_CONFIG_HOME") or "~/.config"
    user = Path(configured or f"{config_home}/git/attributes")
    try:
        user = user.expanduser()
    except RuntimeError:  # no home to expand
        pass
    return user, Path(common_dir) / "info" / "attributes"


def beside_text(files: tuple[Path, Path]) -> bytes:
    """What the attribute files beside the tree hold (b"" where there are none)."""
    found = b""
    for file in files:
        try:
            found += file.read_bytes() + b"\n"
        except OSError:  # absent or unreadable
            continue
    return found


def beside_state(files: tuple[Path, Path]) -> str:
    """What a checkpoint keeps of the attribute files beside the tree to see them change
    (a digest; "" where they say nothing)."""
    found = beside_text(files)
    return hashlib.sha1(found, usedforsecurity=False).hexdigest() if found.strip() else ""
