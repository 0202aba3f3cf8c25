"""The secret rules, as plain data: detect-secrets' regex plugins (AWS, GitHub, GitLab,
Slack, Stripe, JWT, basic-auth URLs, …) used for their patterns only (never their network
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

What each kind's findings contain (``LITERALS``) and the gates a rule waits for
(``GATES``) let ``secrets`` run a rule only where it can match.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from detect_secrets.plugins.base import RegexBasedDetector

from recalld.ingest.secret_values import high_entropy, not_wordlike

MIN_ENTROPY_LENGTH = 20

# detect-secrets plugins by the kind we name them with. IP addresses are no secret; its
# private-key plugin matches a bare "BEGIN RSA PRIVATE KEY" (PRIVATE_KEY_BLOCK is ours).
PLUGINS: dict[str, str] = {
    "aws-access-key": "aws.AWSKeyDetector",
    "artifactory-credentials": "artifactory.ArtifactoryDetector",
    "azure-storage-key": "azure_storage_key.AzureStorageKeyDetector",
    "basic-auth-credentials": "basic_auth.BasicAuthDetector",
    "cloudant-credentials": "cloudant.CloudantDetector",
    "discord-bot-token": "discord.DiscordBotTokenDetector",
    "github-token": "github_token.GitHubTokenDetector",
    "gitlab-token": "gitlab_token.GitLabTokenDetector",
    "ibm-cloud-iam-key": "ibm_cloud_iam.IbmCloudIamDetector",
    "ibm-cos-hmac-credentials": "ibm_cos_hmac.IbmCosHmacDetector",
    "jwt": "jwt.JwtTokenDetector",
    "mailchimp-access-key": "mailchimp.MailchimpDetector",
    "npm-token": "npm.NpmDetector",
    "openai-token": "openai.OpenAIDetector",
    "pypi-token": "pypi_token.PypiTokenDetector",
    "sendgrid-api-key": "sendgrid.SendGridDetector",
    "slack-token": "slack.SlackDetector",
    "softlayer-credentials": "softlayer.SoftlayerDetector",
    "square-oauth-secret": "square_oauth.SquareOAuthDetector",
    "stripe-access-key": "stripe.StripeDetector",
    "telegram-bot-token": "telegram_token.TelegramBotTokenDetector",
    "twilio-api-key": "twilio.TwilioKeyDetector",
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
# Each prefix with the alphabet its tokens use after it, not starting inside a name: a
# Rails test's ``def test_npm_tag_returns_the_latest_tag`` and JavaScript's ``process.env.
# npm_package_version`` ended in a "cut token" (the signature alone was redacted, inside
# its memory's text it was not: what a memory stored hung on how it was written).
CUT_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_])(?:(?:gh[pousr]_|[rs]k_live_|npm_)[A-Za-z0-9]{4,}|github_pat_[A-Za-z0-9_]{4,}"
    r"|(?:glpat-|sk-|pypi-)[A-Za-z0-9_\-]{4,}|xox[aboprs]-[A-Za-z0-9\-]{4,}|A[KS]IA[A-Z0-9]{4,}"
    r"|(?:eyJ|SG\.)[A-Za-z0-9_\-.=]{4,})\Z"
)
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
class Rule:
    kind: str
    pattern: re.Pattern[str]
    accept: Callable[[str], bool] | None = None  # a further check of the matched value
    gates: tuple[re.Pattern[str], ...] = ()  # the rule runs only where each of these is found


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


def _plugin(name: str) -> type[RegexBasedDetector]:
    """A detect-secrets plugin by its ``PLUGINS`` name (module.class), imported now: the
    package and what it imports cost a command ~0.3 s, and only one that scans text needs it."""
    module, _, cls = name.rpartition(".")
    plugin: type[RegexBasedDetector] = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)
    return plugin


def _plugin_rules() -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for kind, name in PLUGINS.items():
        plugin = _plugin(name)
        accept = getattr(plugin, "is_formally_valid", None)  # JWT: decodes to JSON
        if kind in NAMELIKE_KINDS:
            accept = not_wordlike
        gates = tuple(re.compile(gate) for gate in GATES.get(kind, ()))
        for pattern in plugin().denylist:
            if kind == "jwt":  # its pattern ends lazily, before the signature
                pattern = re.compile(pattern.pattern.removesuffix("*?") + "*", pattern.flags)
            if kind == "aws-access-key" and not pattern.groups:  # the key id alone: see WHOLE_TOKEN
                pattern = re.compile(WHOLE_TOKEN.format(pattern.pattern), pattern.flags)
            if kind == "artifactory-credentials":
                pattern = _whole_word(pattern, ARTIFACTORY_AROUND)
            rules.append(Rule(kind, pattern, accept, gates))
    return tuple(rules)


@cache
def rules() -> tuple[Rule, ...]:
    """Every rule, in the order they run (an earlier one wins a tie); made on first use."""
    return (
        Rule("private-key", PRIVATE_KEY_BLOCK, gates=(re.compile("PRIVATE KEY"),)),
        Rule("private-key", PUTTY_KEY, gates=(re.compile("PuTTY-User-Key-File-"),)),
        *_plugin_rules(),
        Rule("basic-auth-credentials", URL_PASSWORD, gates=(re.compile("://"),)),
        Rule("high-entropy-string", QUOTED_BASE64, high_entropy),
        Rule("cut-token", CUT_TOKEN),
    )
