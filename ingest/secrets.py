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
  ``ENTROPY_LIMIT``, that switch character classes like random text does, are not a
  slug of words and hex numbers, and do not decode (base64) to printable text. Hex
  digests (entropy ≤ 4.0), UUIDs, identifiers, paths, model ids and base64-encoded text
  fixtures stay intact; detect-secrets' hex and keyword detectors are not used, being too
  eager on code;
- a **cut token**: a known token prefix running into the end of the text (a text cut
  mid-token by ``max_chars`` would otherwise keep most of it).

Placeholders (``${DB_PASSWORD}``, ``AKIAXXXXXXXXXXXXXXXX``, ``user:pass@``) are no
secret. Cheap gates keep the costly keyword-assignment patterns off most texts, and one
combined screen lets short strings (names, paths, hashes) through at once.

Every match becomes ``[REDACTED:<kind>]``. The result depends on the text alone, so
redaction is deterministic: ids, content hashes of embedded texts and the embedding
cache stay idempotent.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from collections.abc import Callable
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
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
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

MARKER = "[REDACTED:{}]"
ENTROPY_LIMIT = 4.5  # detect-secrets' default for base64 strings; hex tops out at 4.0
MIN_ENTROPY_LENGTH = 20
GROUP_TAIL = 2  # at most a closing quote or "@" after the secret group
MIN_CLASS_SWITCHES = 0.35
PRINTABLE_SHARE = 0.9  # base64 that decodes to this much printable text is a fixture

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

# A rule runs only on texts where its gate is found: the keyword-assignment patterns of
# some plugins cost 10x the others, and their values have a shape that is cheap to find.
GATES: dict[str, str] = {
    "artifactory-credentials": r"AKC|AP[0-9A-F]",
    "aws-access-key": r"[Aa][Ww][Ss]|A(?:3T|BIA|CCA|KIA|SIA)",
    "cloudant-credentials": r"(?i:cl(?:oudant|ou)?[_-]?(?:api)?(?:key|pw|pass|token)|cloudant\.com)",
    "ibm-cloud-iam-key": r"[a-zA-Z0-9_\-]{44}",
    "ibm-cos-hmac-credentials": r"(?i:secret[-_]?(?:access)?[-_]?key)",
    "mailchimp-access-key": r"-us[0-9]",
    "softlayer-credentials": r"(?i:(?:softlayer|sl)[_-]?(?:api)?[_-]?(?:key|pw|pass|token)|softlayer\.com)",
    "telegram-bot-token": r":[0-9A-Za-z_-]{35}",
}
# What every match of a kind's gate (or of all its rules) contains, looked for in the
# lowercased text before the gate itself: each group holds literals one of which must be
# there. Plain substring tests are ~20x cheaper than the gates' regexes, which cannot skip
# ahead to a literal (a class or case-insensitive start): on a 1,000-character symbol,
# ~15 µs per gate, and a sync scans every symbol's whole source for its keyword vector.
# A necessary condition only: the gate and the rules still decide.
GATE_LITERALS: dict[str, tuple[tuple[str, ...], ...]] = {
    "artifactory-credentials": (("akc", "ap"),),
    "aws-access-key": (("aws", "a3t", "abia", "acca", "akia", "asia"),),
    "cloudant-credentials": (("cl",), ("key", "pw", "pass", "token", "cloudant.com")),
    "ibm-cloud-iam-key": (("key", "pwd", "pass", "token"),),  # its rule's, case-insensitive
    "ibm-cos-hmac-credentials": (("secret",), ("key",)),
    "github-token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),),  # no gate: the literals alone
    "mailchimp-access-key": (("-us",),),
    "slack-token": (("xox", "hooks.slack.com"),),
    "softlayer-credentials": (("sl", "softlayer"), ("key", "pw", "pass", "token", "softlayer.com")),
    "stripe-access-key": (("k_live_",),),
    "telegram-bot-token": ((":",),),
}
SEPARATORS = re.compile(r"[/_\-.+=]")
HEX = re.compile(r"[0-9a-fA-F]+")
REPEATED_SHARE = 0.5  # "ACxxxxxxxx…", "AKIAXXXXXXXX…": documentation, not a secret
PLACEHOLDER = re.compile(r"(?i)^(?:pass(?:word|wd)?|pwd|pw|secret|token|key|x+|\*+|changeme)$|[{}<>]|%\(|%s|^\$\w+$")
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
SCOPED_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}
SCREEN_CHARS = 256  # longer texts: the rules one by one are faster than one alternation
TOKEN_TAIL = re.compile(r"[A-Za-z0-9_+/=-]+")
_BASE64 = Base64HighEntropyString()
QUOTED_BASE64 = re.compile(r"""(['"`])([A-Za-z0-9+/=_\-]{%d,})\1""" % MIN_ENTROPY_LENGTH)
QUOTED_RUN = re.compile(r"""['"`][A-Za-z0-9+/=_\-]{%d,}['"`]""" % MIN_ENTROPY_LENGTH)  # for SCREEN


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
    gate: re.Pattern[str] | None = None  # the rule runs only where this is found
    gate_needs: tuple[tuple[str, ...], ...] = ()  # GATE_LITERALS: looked for before the gate (or alone)


def _may_pass(needs: tuple[tuple[str, ...], ...], lowered: str) -> bool:
    return all(any(literal in lowered for literal in group) for group in needs)


def _plugin_rules() -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for kind, plugin in PLUGINS.items():
        accept = getattr(plugin, "is_formally_valid", None)  # JWT: decodes to JSON
        gate = re.compile(GATES[kind]) if kind in GATES else None
        for pattern in plugin().denylist:
            if plugin is JwtTokenDetector:  # its pattern ends lazily, before the signature
                pattern = re.compile(pattern.pattern.removesuffix("*?") + "*", pattern.flags)
            rules.append(Rule(kind, pattern, accept, gate, GATE_LITERALS.get(kind, ())))
    return tuple(rules)


def high_entropy(value: str) -> bool:
    """A random-looking base64 string: not base64-encoded text, not words and paths."""
    if _BASE64.calculate_shannon_entropy(value) <= ENTROPY_LIMIT:
        return False
    if _class_switches(value) < MIN_CLASS_SWITCHES or _words_and_hex(value):
        return False
    return not _decodes_to_text(value)


def _words_and_hex(value: str) -> bool:
    """Segments that are each a word or a hex/decimal number: a slug like
    "TheBloke/recent-models-64f9a55bb3115b4f513ec026", not a random token."""
    return all(part.isalpha() or HEX.fullmatch(part) for part in SEPARATORS.split(value) if part)


def _class_switches(value: str) -> float:
    """Share of neighbouring characters of different classes (lower, upper, digit, other):
    about 0.64 for random base64, about 0.25 for "naver-hyperclovax/HyperCLOVAX-SEED-14B"."""
    classes = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "o" for c in value]
    return sum(a != b for a, b in zip(classes, classes[1:])) / max(1, len(value) - 1)


def _decodes_to_text(value: str) -> bool:
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_" if "-" in value or "_" in value else None)
    except (binascii.Error, ValueError):
        return False
    if not raw:
        return False
    printable = sum(1 for b in raw if 32 <= b < 127 or b in (9, 10, 13))
    return printable / len(raw) >= PRINTABLE_SHARE


RULES: tuple[Rule, ...] = (
    Rule("private-key", PRIVATE_KEY_BLOCK, gate=re.compile("PRIVATE KEY")),
    Rule("private-key", PUTTY_KEY, gate=re.compile("PuTTY-User-Key-File-")),
    *_plugin_rules(),
    Rule("basic-auth-credentials", URL_PASSWORD, gate=re.compile("://")),
    Rule("high-entropy-string", QUOTED_BASE64, high_entropy),
    Rule("cut-token", CUT_TOKEN),
)


def _screen(rules: tuple[Rule, ...]) -> re.Pattern[str]:
    """One pattern that every text with a finding matches (a rule's gate, or the rule):
    most strings of a payload (names, paths, hashes, commits) pass it at once."""
    parts = []
    for rule in rules:
        pattern = rule.gate or (QUOTED_RUN if rule.pattern is QUOTED_BASE64 else rule.pattern)
        assert not re.search(r"\\[1-9]", pattern.pattern), f"{rule.kind}: a back-reference cannot be screened"
        flags = "".join(f for f, bit in SCOPED_FLAGS.items() if pattern.flags & bit)
        parts.append(f"(?{flags}:{pattern.pattern})")
    return re.compile("|".join(parts))


SCREEN = _screen(RULES)


def find_secrets(text: str) -> list[Finding]:
    """Non-overlapping findings in ``text``, in order; the earlier rule wins a tie."""
    if len(text) <= SCREEN_CHARS and SCREEN.search(text) is None:
        return []
    spans: list[Finding] = []
    gates: dict[tuple[re.Pattern[str] | None, tuple[tuple[str, ...], ...]], bool] = {}  # shared by a plugin's rules
    lowered = text.lower()
    for rule in RULES:
        if rule.gate is not None or rule.gate_needs:
            gate = (rule.gate, rule.gate_needs)
            if gate not in gates:
                gates[gate] = _may_pass(rule.gate_needs, lowered) and (
                    rule.gate is None or rule.gate.search(text) is not None
                )
            if not gates[gate]:
                continue
        for match in rule.pattern.finditer(text, _start_for(rule, text)):
            start, end = _secret_span(match)
            end = _token_end(text, end)
            value = text[start:end]
            if not value or _placeholder(value) or (rule.accept is not None and not rule.accept(value)):
                continue
            spans.append(Finding(rule.kind, start, end))
    return _merge(spans)


def _placeholder(value: str) -> bool:
    if PLACEHOLDER.search(value):
        return True
    return Counter(value).most_common(1)[0][1] >= REPEATED_SHARE * len(value) and len(value) > 2


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
CLEAN_MEMO_SIZE = 16_384
CLEAN_MEMO_CHARS = 2_048


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
