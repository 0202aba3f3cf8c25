"""Finding and redacting secrets in a text, in process and offline.

The rules are plain data: detect-secrets' regex plugins (AWS, GitHub, GitLab, Slack,
Stripe, JWT, basic-auth URLs, …) used for their patterns only (never their network
verification), plus rules of ours:

- a **private key block** (``-----BEGIN … PRIVATE KEY-----`` to its ``-----END …-----``,
  across lines, string quotes and ``\\n`` escapes; PuTTY key files too) is redacted
  whole; without an END (a text cut at ``max_chars``) the base64 body after the header
  goes with it;
- a **URL password** (``scheme://user:password@``) with any characters but separators;
- a **high-entropy quoted string**: detect-secrets' base64 charset and Shannon entropy,
  but only for strings of at least ``MIN_ENTROPY_LENGTH`` characters with entropy above
  ``secret_values.ENTROPY_LIMIT``, that switch character classes like random text does, are not a
  slug of words and hex numbers, and do not decode (base64) to printable text. Hex
  digests (entropy ≤ 4.0), UUIDs, identifiers, paths, model ids and base64-encoded text
  fixtures stay intact; detect-secrets' hex and keyword detectors are not used, being too
  eager on code;
- a **cut token**: a known token prefix running into the end of the text (a text cut
  mid-token by ``max_chars`` would otherwise keep most of it).

Placeholders (``${DB_PASSWORD}``, ``AKIAXXXXXXXXXXXXXXXX``, ``user:pass@``) are no
secret. A rule runs only on texts that hold its kind's literals (substring tests) and
its gates: most strings of a payload and most code open no rule at all, and the costly
keyword-assignment patterns run only where their keywords are.

Every match becomes ``[REDACTED:<kind>]``. The result depends on the text alone, so
redaction is deterministic: ids, content hashes of embedded texts and the embedding
cache stay idempotent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from recalld.ingest.secret_values import high_entropy, not_wordlike, placeholder

MARKER = "[REDACTED:{}]"
MARKER_PREFIX = MARKER.partition("{")[0]
MIN_ENTROPY_LENGTH = 20
GROUP_TAIL = 2  # at most a closing quote or "@" after the secret group

# detect-secrets plugins by the kind we name them with. IP addresses are no secret; its
# private-key plugin matches a bare "BEGIN RSA PRIVATE KEY" (PRIVATE_KEY_BLOCK is ours).
PLUGINS: dict[str, type[RegexBasedDetector]] = {
    "aws-access-key": AWSKeyDetector,
    "artifactory-credentials": ArtifactoryDetector,
    "azure-storage-key": AzureStorageKeyDetector,
    "basic-auth-credentials": BasicAuthDetector,
    "cloudant-credentials": CloudantDetector,
    "discord-bot-token": DiscordBotTokenDetector,
    "github-token": GitHubTokenDetector,
    "gitlab-token": GitLabTokenDetector,
    "ibm-cloud-iam-key": IbmCloudIamDetector,
    "ibm-cos-hmac-credentials": IbmCosHmacDetector,
    "jwt": JwtTokenDetector,
    "mailchimp-access-key": MailchimpDetector,
    "npm-token": NpmDetector,
    "openai-token": OpenAIDetector,
    "pypi-token": PypiTokenDetector,
    "sendgrid-api-key": SendGridDetector,
    "slack-token": SlackDetector,
    "softlayer-credentials": SoftlayerDetector,
    "square-oauth-secret": SquareOAuthDetector,
    "stripe-access-key": StripeDetector,
    "telegram-bot-token": TelegramBotTokenDetector,
    "twilio-api-key": TwilioKeyDetector,
}

# A rule runs only on texts where its gates are found, in turn: the keyword-assignment
# patterns of some plugins cost 10x the others, and their values have a shape that is
# cheap to find.
GATES: dict[str, tuple[str, ...]] = {
    "artifactory-credentials": (r"AKC|AP[0-9A-F]",),
    "aws-access-key": (r"[Aa][Ww][Ss]|A(?:3T|BIA|CCA|KIA|SIA)",),
    "cloudant-credentials": (r"(?i:cl(?:oudant|ou)?[_-]?(?:api)?(?:key|pw|pass|token)|cloudant\.com)",),
    # a 44-character run (rare, cheap to look for), then the rule's tail from its keyword
    # on: the rule took ~1 ms a text where a long run and the keyword merely both occur
    "ibm-cloud-iam-key": (r"[a-zA-Z0-9_\-]{44}",
                          r"""(?i:(?:key|pwd|password|pass|token)["']?\]? *(?:=|:|:=|=>| +|::) *["']?[\w\-]{44})"""),
    "ibm-cos-hmac-credentials": (r"(?i:secret[-_]?(?:access)?[-_]?key)",),
    "mailchimp-access-key": (r"-us[0-9]",),
    "softlayer-credentials": (r"(?i:(?:softlayer|sl)[_-]?(?:api)?[_-]?(?:key|pw|pass|token)|softlayer\.com)",),
    "telegram-bot-token": (r":[0-9A-Za-z_-]{35}",),
}
# What every finding of a kind contains, looked for in the lowercased text before its gate
# and rules: each group holds literals one of which must be there. Plain substring tests
# are ~20x cheaper than regexes that cannot skip ahead to a literal (a class or
# case-insensitive start), and one ``in`` per kind is cheaper than even a literal-prefixed
# search per rule: most texts (names, signatures, docstrings, code) open no kind at all.
# A necessary condition only: the gates and the rules still decide.
LITERALS: dict[str, tuple[tuple[str, ...], ...]] = {
    "private-key": (("private key", "putty-user-key-file-"),),
    "aws-access-key": (("aws", "a3t", "abia", "acca", "akia", "asia"),),
    "artifactory-credentials": (("akc", "ap"),),
    "azure-storage-key": (("accountkey=",),),
    "basic-auth-credentials": (("://",), ("@",)),
    "cloudant-credentials": (("cl",), ("key", "pw", "pass", "token", "cloudant.com")),
    "discord-bot-token": ((".",),),
    "github-token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),),
    "gitlab-token": (("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "gr1348941", "glcbt-", "glimt-", "glptt-",
                      "glagent-", "gloas-"),),
    "ibm-cloud-iam-key": (("key", "pwd", "pass", "token"),),  # its rule's, case-insensitive
    "ibm-cos-hmac-credentials": (("secret",), ("key",)),
    "jwt": (("eyj",), (".",)),
    "mailchimp-access-key": (("-us",),),
    "npm-token": (("/:_authtoken=",),),
    "openai-token": (("sk-",), ("t3blbkfj",)),
    "pypi-token": (("pypi-ag",),),
    "sendgrid-api-key": (("sg.",),),
    "slack-token": (("xox", "hooks.slack.com"),),
    "softlayer-credentials": (("sl", "softlayer"), ("key", "pw", "pass", "token", "softlayer.com")),
    "square-oauth-secret": (("sq0csp-",),),
    "stripe-access-key": (("k_live_",),),
    "telegram-bot-token": ((":",),),
    "twilio-api-key": (("ac", "sk"),),
    "high-entropy-string": (("'", '"', "`"),),
    "cut-token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "k_live_", "sk-", "akia",
                   "asia", "eyj", "sg.", "npm_", "pypi-"),),
}  # fmt: skip
URL_PASSWORD = re.compile(r"://[^\s:/?#@'\"\[\]()]+:([^\s/?#@'\"\[\]()]+)@")  # detect-secrets' refuses !$&*+,;=
PUTTY_KEY = re.compile(r"PuTTY-User-Key-File-\d+:[\s\S]{0,12000}?(?:Private-MAC:\s*[0-9a-fA-F]+|\Z)")
PRIVATE_KEY_BLOCK = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----"
    r"(?:[\s\S]{0,12000}?-----END[A-Z0-9 ]*-----|(?:(?:\\[nr]|[\s'\"`+,])+[A-Za-z0-9+/=]{8,})*)"
)
CUT_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?:gh[pousr]_|github_pat_|glpat-|xox[aboprs]-|[rs]k_live_|sk-|AKIA|ASIA|eyJ|SG\.|npm_|pypi-)"
    r"[A-Za-z0-9_\-./+=]{4,}\Z"
)
CUT_TOKEN_WINDOW = 120
TOKEN_TAIL = re.compile(r"[A-Za-z0-9_+/=-]+")
# An AWS access key id is a token of exactly 20 characters; its prefixes ("ACCA", "ABIA")
# turn up inside longer runs of hex digits, such as a Diffie-Hellman prime in the JDK's
# TLS code ("30ACCA4F483A…"), which detect-secrets' pattern alone takes for a key. A
# percent escape before it ("Credential%3DAKIA…" in an encoded URL) still ends a token.
WHOLE_TOKEN = r"(?:(?<![A-Za-z0-9])|(?<=%[0-9A-Fa-f]{{2}})){}(?![A-Za-z0-9])"
# What detect-secrets' Artifactory patterns match around a token: a space, ``=``, ``:``
# or a quote before it, a space or a quote or the end after it. The same token was a
# secret at the end of a signature (``-> APCUPSdData``) and none in the text that holds
# it (``-> APCUPSdData:``): a memory's fields are scanned apart only when its text is
# not clean, so the stored signature depended on the path that wrote it. And the span
# took the line break after the token, then ran on over the next line's first word.
ARTIFACTORY_AROUND = ('(?:\\s|=|:|"|^)', '(?:\\s|"|$)')
QUOTED_BASE64 = re.compile(r"""(['"`])([A-Za-z0-9+/=_\-]{%d,})\1""" % MIN_ENTROPY_LENGTH)


@dataclass(frozen=True, slots=True)
class Finding:
    """Where a secret sits in a text (never the secret itself)."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    accept: Callable[[str], bool] | None = None  # a further check of the matched value
    gates: tuple[re.Pattern[str], ...] = ()  # the rule runs only where each of these is found


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


# Kinds whose patterns take a bare token for a secret (after a space, at a line's end,
# after ``key=``), which a name made of words can be: Home Assistant's class
# ``APCUPSdData`` read as an Artifactory password, its ``key="gas_summary_consumption_
# heating_currentmonth"`` as an IBM Cloud key. A real one is random (``not_wordlike``).
NAMELIKE_KINDS = frozenset({"artifactory-credentials", "ibm-cloud-iam-key"})


def _whole_word(pattern: re.Pattern[str], around: tuple[str, str]) -> re.Pattern[str]:
    """``pattern`` without the context ``around`` it, as a whole word: what precedes or
    follows the token no longer decides whether it is one."""
    before, after = around
    core = pattern.pattern
    if not (core.startswith(before) and core.endswith(after)):
        return pattern  # another release of the plugin: its own pattern, as it is
    return re.compile(rf"(?<!\w){core[len(before) : len(core) - len(after)]}(?!\w)", pattern.flags)


def _plugin_rules() -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for kind, plugin in PLUGINS.items():
        accept = getattr(plugin, "is_formally_valid", None)  # JWT: decodes to JSON
        if kind in NAMELIKE_KINDS:
            accept = not_wordlike
        gates = tuple(re.compile(gate) for gate in GATES.get(kind, ()))
        for pattern in plugin().denylist:
            if plugin is JwtTokenDetector:  # its pattern ends lazily, before the signature
                pattern = re.compile(pattern.pattern.removesuffix("*?") + "*", pattern.flags)
            if plugin is AWSKeyDetector and not pattern.groups:  # the key id alone: see WHOLE_TOKEN
                pattern = re.compile(WHOLE_TOKEN.format(pattern.pattern), pattern.flags)
            if plugin is ArtifactoryDetector:
                pattern = _whole_word(pattern, ARTIFACTORY_AROUND)
            rules.append(Rule(kind, pattern, accept, gates))
    return tuple(rules)


RULES: tuple[Rule, ...] = (
    Rule("private-key", PRIVATE_KEY_BLOCK, gates=(re.compile("PRIVATE KEY"),)),
    Rule("private-key", PUTTY_KEY, gates=(re.compile("PuTTY-User-Key-File-"),)),
    *_plugin_rules(),
    Rule("basic-auth-credentials", URL_PASSWORD, gates=(re.compile("://"),)),
    Rule("high-entropy-string", QUOTED_BASE64, high_entropy),
    Rule("cut-token", CUT_TOKEN),
)


def _screens(rules: tuple[Rule, ...]) -> tuple[tuple[Screen, ...], tuple[int, ...]]:
    """The distinct screens of ``rules``, and the index of each rule's screen."""
    screens: dict[Screen, int] = {}
    of_rule = tuple(screens.setdefault(Screen(LITERALS[r.kind], r.gates), len(screens)) for r in rules)
    return tuple(screens), of_rule


SCREENS, RULE_SCREENS = _screens(RULES)


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


FIRST_LITERALS = _by_first_literal(SCREENS)


# The indices of the rules behind each screen, in rule order.
SCREEN_RULES: tuple[tuple[int, ...], ...] = tuple(
    tuple(rule for rule, screen in enumerate(RULE_SCREENS) if screen == index) for index in range(len(SCREENS))
)


def _open_screens(text: str, lowered: str) -> list[int]:
    """The indices of the ``SCREENS`` that open on ``text``, ascending: the same as
    asking each of them."""
    candidates: set[int] = set()
    for key, literals in FIRST_LITERALS:
        if key not in lowered:
            continue
        for literal, indexes in literals:
            if literal == key or literal in lowered:
                candidates.update(indexes)
    return sorted(index for index in candidates if SCREENS[index].opens(text, lowered))


def _open_rules(text: str, lowered: str) -> Sequence[int]:
    """The indices of the rules whose screen opens on ``text``, in rule order: most
    strings open one screen or none, and a loop over all 42 rules to skip the shut ones
    was about half of scanning a name or a signature."""
    screens = _open_screens(text, lowered)
    if len(screens) <= 1:
        return SCREEN_RULES[screens[0]] if screens else ()
    return sorted(rule for screen in screens for rule in SCREEN_RULES[screen])


def find_secrets(text: str) -> list[Finding]:
    """Non-overlapping findings in ``text``, in order; the earlier rule wins a tie."""
    lowered = text.lower()
    spans: list[Finding] = []
    for index in _open_rules(text, lowered):
        rule = RULES[index]
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
