"""Finding and redacting secrets in a text, in process and offline.

The rules are ``secret_rules``': detect-secrets' patterns and ours. Placeholders
(``${DB_PASSWORD}``, ``AKIAXXXXXXXXXXXXXXXX``, ``user:pass@``) are no secret. A rule runs
only on texts that hold its kind's literals (substring tests) and its gates: most
strings of a payload and most code open no rule at all, and the costly
keyword-assignment patterns run only where their keywords are.

Every match becomes ``[REDACTED:<kind>]``. The result depends on the text alone, so
redaction is deterministic: ids, content hashes of embedded texts and the embedding
cache stay idempotent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache

from recalld.ingest import secret_rules
from recalld.ingest.secret_rules import CUT_TOKEN, LITERALS, Rule
from recalld.ingest.secret_values import placeholder

MARKER = "[REDACTED:{}]"
MARKER_PREFIX = MARKER.partition("{")[0]
GROUP_TAIL = 2  # at most a closing quote or "@" after the secret group
CUT_TOKEN_WINDOW = 120
TOKEN_TAIL = re.compile(r"[A-Za-z0-9_+/=-]+")


@dataclass(frozen=True, slots=True)
class Finding:
    """Where a secret sits in a text (never the secret itself)."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Screen:
    """What a text must hold before a rule runs on it: its kind's ``LITERALS`` (in the
    lowercased text), then its gates. Rules of one kind and gates share their screen."""

    needs: tuple[tuple[str, ...], ...]
    gates: tuple[re.Pattern[str], ...]

    def opens(self, text: str, lowered: str) -> bool:
        for group in self.needs:  # loops, not all(any(...)): ~5x faster on short strings
            for literal in group:
                if literal in lowered:
                    break
            else:
                return False
        for gate in self.gates:
            if gate.search(text) is None:
                return False
        return True


def _screens(rules: tuple[Rule, ...]) -> tuple[tuple[Screen, ...], tuple[int, ...]]:
    """The distinct screens of ``rules``, and the index of each rule's screen."""
    screens: dict[Screen, int] = {}
    of_rule = tuple(screens.setdefault(Screen(LITERALS[r.kind], r.gates), len(screens)) for r in rules)
    return tuple(screens), of_rule


def _by_first_literal(screens: tuple[Screen, ...]) -> tuple[tuple[str, tuple[tuple[str, tuple[int, ...]], ...]], ...]:
    """Each literal of a screen's first group, with the screens it may open, grouped by
    the two characters it starts with and keyed by what the group's literals all start
    with (a group of one: the literal itself). A screen opens only where one of its first
    group's literals is found, and a text holds few of the ~55 literals (most hold ".",
    ":" or a quote): a substring test per key (one for GitLab's ten), then one per
    literal of the keys found, and a couple of screens, rather than every screen's loop
    (a third of scanning time went to screens that stay shut). A key as long as its
    literals allow: two characters are in most code ("se", "to", "pr") where "secret",
    "token" and "private key" are not, and a test for one of those was then a second
    pass over the text; screening Django's scanned strings took 0.85x as long."""
    by_literal: dict[str, list[int]] = {}
    for index, screen in enumerate(screens):
        for literal in screen.needs[0]:
            by_literal.setdefault(literal, []).append(index)
    by_prefix: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
    for literal, indexes in by_literal.items():
        by_prefix.setdefault(literal[:2], []).append((literal, tuple(indexes)))
    return tuple(
        (os.path.commonprefix([literal for literal, _ in literals]), tuple(literals)) for literals in by_prefix.values()
    )


@dataclass(frozen=True, slots=True)
class Scanner:
    """The rules and the tables that pick those to run on a text."""

    rules: tuple[Rule, ...]
    screens: tuple[Screen, ...]
    rule_screens: tuple[int, ...]  # the index of each rule's screen
    first_literals: tuple[tuple[str, tuple[tuple[str, tuple[int, ...]], ...]], ...]  # ``_by_first_literal``
    screen_rules: tuple[tuple[int, ...], ...]  # the indices of the rules behind each screen, in rule order

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> Scanner:
        screens, of_rule = _screens(rules)
        behind = tuple(tuple(r for r, screen in enumerate(of_rule) if screen == index) for index in range(len(screens)))
        return cls(rules, screens, of_rule, _by_first_literal(screens), behind)


@cache
def scanner() -> Scanner:
    """The scanner of ``secret_rules.rules()``, made on first use (a command that scans no
    text never imports detect-secrets)."""
    return Scanner.of(secret_rules.rules())


def _open_screens(scan: Scanner, text: str, lowered: str) -> list[int]:
    """The indices of the screens that open on ``text``, ascending: the same as asking
    each of them."""
    candidates: set[int] = set()
    for key, literals in scan.first_literals:
        if key not in lowered:
            continue
        for literal, indexes in literals:
            if literal == key or literal in lowered:
                candidates.update(indexes)
    return sorted(index for index in candidates if scan.screens[index].opens(text, lowered))


def _open_rules(scan: Scanner, text: str, lowered: str) -> Sequence[int]:
    """The indices of the rules whose screen opens on ``text``, in rule order: most
    strings open one screen or none, and a loop over all 42 rules to skip the shut ones
    was about half of scanning a name or a signature."""
    screens = _open_screens(scan, text, lowered)
    if len(screens) <= 1:
        return scan.screen_rules[screens[0]] if screens else ()
    return sorted(rule for screen in screens for rule in scan.screen_rules[screen])


def find_secrets(text: str) -> list[Finding]:
    """Non-overlapping findings in ``text``, in order; the earlier rule wins a tie."""
    scan, lowered = scanner(), text.lower()
    spans: list[Finding] = []
    for index in _open_rules(scan, text, lowered):
        rule = scan.rules[index]
        for match in rule.pattern.finditer(text, _start_for(rule, text)):
            start, end = _secret_span(match)
            end = _token_end(text, end)
            value = text[start:end]
            if not value or placeholder(value) or (rule.accept is not None and not rule.accept(value)):
                continue
            spans.append(Finding(rule.kind, start, end))
    return _merge(spans) if spans else spans


def _start_for(rule: Rule, text: str) -> int:
    """A cut token can only sit at the end of the text: look at the tail alone."""
    return max(0, len(text) - CUT_TOKEN_WINDOW) if rule.pattern is CUT_TOKEN else 0


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The secret within a match: a group that runs to (nearly) the match's end, such
    as the quoted value after ``aws_secret_access_key =``; otherwise the whole match
    (``(ghp|gho|…)_…`` has a group that is only the prefix)."""
    for group in range(1, match.re.groups + 1):
        start, end = match.span(group)
        if end > start and match.end() - end <= GROUP_TAIL:
            return start, end
    return match.span()


def _token_end(text: str, end: int) -> int:
    """Extend a match over the rest of its token (a 36-character rule inside a longer key)."""
    tail = TOKEN_TAIL.match(text, end)
    return tail.end() if tail else end


def _merge(spans: list[Finding]) -> list[Finding]:
    merged: list[Finding] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.kind, last.start, max(last.end, span.end))
        else:
            merged.append(span)
    return merged


# Strings already scanned and found clean. A sync scans the same strings again and again
# (a file's path, the repo, branch and commit in every memory of the file; a symbol's
# text once ahead of the embedder, then in its draft), and ``find_secrets`` is a pure
# function of the string. Bounded: cleared whole when full; long strings are not kept.
_CLEAN: set[str] = set()
KNOWN_CLEAN: AbstractSet[str] = _CLEAN  # the same set, for others to look up only
CLEAN_MEMO_SIZE = 16_384
CLEAN_MEMO_CHARS = 2_048


def forget_clean() -> None:
    _CLEAN.clear()


def redact(text: str) -> tuple[str, list[Finding]]:
    """``text`` with every secret replaced by its marker, and what was found."""
    if text in _CLEAN:
        return text, []
    findings = find_secrets(text)
    if not findings:
        if len(text) <= CLEAN_MEMO_CHARS:
            if len(_CLEAN) >= CLEAN_MEMO_SIZE:
                _CLEAN.clear()
            _CLEAN.add(text)
        return text, []
    out: list[str] = []
    at = 0
    for finding in findings:
        out.append(text[at : finding.start])
        out.append(MARKER.format(finding.kind))
        at = finding.end
    out.append(text[at:])
    return "".join(out), findings


def line_of(text: str, finding: Finding) -> int:
    """1-based line of ``finding`` within ``text``."""
    return text.count("\n", 0, finding.start) + 1
