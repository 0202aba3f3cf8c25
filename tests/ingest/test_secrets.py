"""The secret scanner on its own: what it redacts, what it leaves alone, determinism."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from recalld.ingest import secrets as secrets_module
from recalld.ingest.secrets import find_secrets, redact

AWS_KEY_ID = "AKIAQ7N3ZKXW4PLM2RT6"
AWS_SECRET = "kT9vQ2mX7pL4wR8nB3sF6hJ1cY5dG0aZ/eU+iOqW"
GITHUB_TOKEN = "ghp_" + "R7kQ2mZx9LpW4vN8bT3sF6hJ1cY5dG0aUeIo"
PEM_BODY = ["MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
            "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
            "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo"]  # fmt: skip
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_BODY) + "\n-----END RSA PRIVATE KEY-----"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0"
    "IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def leaks(text: str, *secrets: str) -> list[str]:
    redacted, _ = redact(text)
    parts = [p for s in secrets for p in (s, *s.split("\n")) if len(p) >= 8]
    return [p for p in parts if p in redacted]


@pytest.mark.parametrize(
    ("source", "secret", "kind"),
    [
        (f'AWS_ACCESS_KEY_ID = "{AWS_KEY_ID}"', AWS_KEY_ID, "aws-access-key"),
        (f"u = 'https://h/?X-Amz-Credential%3D{AWS_KEY_ID}%2F20240101'", AWS_KEY_ID, "aws-access-key"),
        (f'aws_secret_access_key = "{AWS_SECRET}"', AWS_SECRET, "aws-access-key"),
        (f"client = Github('{GITHUB_TOKEN}')", GITHUB_TOKEN, "github-token"),
        (f'KEY = """{PEM}"""\n', PEM, "private-key"),
        (f"auth = 'Bearer {JWT}'", JWT, "jwt"),
        ('stripe.api_key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"', "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-access-key"),
        ('SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"', "AbCdEfGhIjKlMnOpQrStUvWx", "slack-token"),
        ('DSN = "postgres://app:Xq7!v9Lw2@db.internal/app"', "Xq7!v9Lw2", "basic-auth-credentials"),
        ('DSN = "postgres://app:p%40ss$w0rd@db/app"', "p%40ss$w0rd", "basic-auth-credentials"),
        ('signing_key = "Zx9Qp2Lm7Rt4Vb8Nc1Hs6Kd3Jf5Gw0Ya"', "Zx9Qp2Lm7Rt4Vb8Nc1Hs6Kd3Jf5Gw0Ya", "high-entropy-string"),
    ],
)
def test_known_secret_formats_are_redacted(source, secret, kind):
    redacted, findings = redact(source)
    assert secret not in redacted
    assert f"[REDACTED:{kind}]" in redacted
    assert kind in {f.kind for f in findings}


def test_private_key_blocks_go_whole_in_every_spelling():
    escaped = 'KEY = "' + PEM.replace("\n", "\\n") + '"\nkey_id = 7'
    js = "const key = '-----BEGIN PRIVATE KEY-----\\n' +\n" + "".join(
        f"  '{line}\\n' +\n" for line in PEM_BODY
    ) + "  '-----END PRIVATE KEY-----\\n';\nconnect(key);"
    cut = "KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\\n" + PEM_BODY[0] + "\\n" + PEM_BODY[1][:30]  # cut at max_chars
    for text in (PEM, escaped, js, cut):
        redacted, findings = redact(text)
        assert not leaks(text, *PEM_BODY, PEM_BODY[1][:30]), redacted
        assert "PRIVATE KEY" not in redacted and [f.kind for f in findings] == ["private-key"]
    assert redact(escaped)[0] == 'KEY = "[REDACTED:private-key]"\nkey_id = 7'
    assert redact(js)[0].endswith("\\n';\nconnect(key);")


def test_a_header_constant_does_not_swallow_the_code_after_it():
    text = 'PEM_HEADER = "-----BEGIN RSA PRIVATE KEY-----"\nPEM_FOOTER = "-----END"\n'
    assert redact(text)[0] == 'PEM_HEADER = "[REDACTED:private-key]"\nPEM_FOOTER = "-----END"\n'


def test_a_token_cut_by_the_text_limit_is_redacted():
    text = "def client():\n    return Github('" + GITHUB_TOKEN[:22]
    assert redact(text)[0] == "def client():\n    return Github('[REDACTED:cut-token]"
    words = "def assess():\n    return 'low-risk-free"  # "sk-" inside a word
    assert redact(words) == (words, [])
    for name in ("def test_npm_tag_returns_the_latest_tag", "version = process.env.npm_package_version"):
        assert redact(name) == (name, [])  # a token's prefix inside a name, or not in its alphabet after it
    assert redact("npm = 'npm_" + "a1B2" * 3)[0] == "npm = '[REDACTED:cut-token]"


@pytest.mark.parametrize(
    "ordinary",
    [
        'digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',  # sha256 hex
        'commit = "da39a3ee5e6b4b0d3255bfef95601890afd80709"',  # git sha1
        'request_id = "123e4567-e89b-12d3-a456-426614174000"',  # uuid
        'FIXTURE = "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw=="',  # base64 of text
        'HELLO = "aGVsbG8gd29ybGQ="',
        'model = "naver-hyperclovax/HyperCLOVAX-SEED-Think-14B"',  # a path of words
        'name = "test_should_handle_multiple_concurrent_requests"',
        'ICON = "iVBORw0KGgo="',  # short base64
        "url = 'https://user:pass@host:8080/path'",  # documented placeholder
        'password = "${DB_PASSWORD}"',
        "url = 'redis://default:$REDIS_PASSWORD@cache:6379'",
        "url = 'mysql://%(user)s:%(password)s@%(host)s/db'",
        'BEGIN = "BEGIN RSA PRIVATE KEY"  # the marker text alone',
        "x = AKIA_PREFIX + suffix",
        '"30ACCA4F483A797ABC0AB182B324FB61D108A94BB2C8E3FB" +',  # hex digits of a DH prime
        "APCUPSdData",  # Home Assistant's names, read as Artifactory passwords
        "python class APCUPSdCoordinator\nclass APCUPSdCoordinator(DataUpdateCoordinator):",
        '    key="gas_summary_consumption_heating_currentmonth",',  # and as IBM Cloud keys
        '    key="panel_fault_point_bus_fail_since_rps_hang_up",',
        # a name of words with a numeronym in it (React Native's ``RCTI18nUtil.m``)
        '  return [defaults boolForKey:@"RCTI18nUtil_makeRTLFlipLeftAndRightStyles"];',
    ],
)
def test_ordinary_code_is_left_intact(ordinary):
    assert redact(ordinary) == (ordinary, [])


def test_a_token_between_delimiters_goes_without_them():
    """A pattern that matches the space or line break around its token redacts the token
    alone: the line break taken for part of it ran the redaction over the next word."""
    text = 'password AP6V9ZRXMSvxiJ7xvzHK1LSK96v\nclass Foo:\n    k = "AKCp5abcdefghij1234"\n'
    assert redact(text)[0] == (
        'password [REDACTED:artifactory-credentials]\nclass Foo:\n    k = "[REDACTED:artifactory-credentials]"\n'
    )


def test_a_token_is_a_secret_whatever_follows_it():
    """A memory's fields are scanned apart only when its text is not clean: a token found
    at a field's end but not before a ``:`` in the text made the stored signature depend
    on the path that wrote it."""
    token = "AP6V9ZRXMSvxiJ7xvzHK1LSK96v"
    for text in (f"-> {token}", f"-> {token}:", f"f({token}, 1)", token):
        assert redact(text)[0] == text.replace(token, "[REDACTED:artifactory-credentials]"), text
    assert redact(f"MY_{token}") == (f"MY_{token}", [])  # inside a word


def test_redaction_is_deterministic_and_idempotent():
    text = f'a = "{AWS_KEY_ID}"\nb = "{GITHUB_TOKEN}"\n{PEM}\nc = "{JWT}"'
    once, findings = redact(text)
    assert redact(text) == (once, findings)
    assert redact(once) == (once, [])
    assert [f.kind for f in findings] == ["aws-access-key", "github-token", "private-key", "jwt"]
    assert not leaks(text, AWS_KEY_ID, GITHUB_TOKEN, PEM, JWT)


def test_the_scanner_never_touches_the_network(monkeypatch):
    def refuse(*_args, **_kw):  # type: ignore[no-untyped-def]
        raise AssertionError("the scanner opened a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert len(find_secrets(f"{AWS_KEY_ID} {AWS_SECRET} {GITHUB_TOKEN} {JWT} xoxb-1-2-abc")) >= 3


@pytest.mark.parametrize(
    "documentation",
    [
        "# Account SID (ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)",
        'EXAMPLE_KEY_ID = "AKIAXXXXXXXXXXXXXXXX"',
        '"git://[path-to-repo[:]][ref@]path/to/file"',
        'Slug of the collection. E.g. `"TheBloke/recent-models-64f9a55bb3115b4f513ec026"`.',
    ],
)
def test_documented_shapes_and_slugs_are_left_intact(documentation):
    assert redact(documentation) == (documentation, [])


def test_a_putty_key_file_goes_whole():
    key = (
        "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: deploy\nPublic-Lines: 1\n"
        f"AAAAB3NzaC1yc2EAAAABJQAAAQEA\nPrivate-Lines: 2\n{PEM_BODY[0]}\n{PEM_BODY[1]}\n"
        "Private-MAC: 8a2c4f1be3d5a6c7b8e9f0a1b2c3d4e5f6a7b8c9\n"
    )
    redacted, findings = redact(f'KEY = """{key}"""')
    assert redacted == 'KEY = """[REDACTED:private-key]\n"""' and [f.kind for f in findings] == ["private-key"]


# Per kind: texts each alternative of its gate matches, and texts its rules find.
HEX64 = "0123456789abcdef" * 4
B64 = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6"
KIND_EXAMPLES = {
    "private-key": [PEM, "PuTTY-User-Key-File-2: ssh-rsa\nPrivate-Lines: 1\n" + PEM_BODY[0]],
    "artifactory-credentials": ["AKCp8abc", "AP6xyz", "APF", 'artifactory = "AKCp5abcdefghij1234"', " AP6abcdefgh1 "],
    "aws-access-key": ["aws", "AWS", "aWs", "A3TX", "ABIA", "ACCA", "AKIA", "ASIA", "id = AKIAIOSFODNN7EXAMPL3",
                       'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"'],
    "azure-storage-key": ["DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + (B64 * 2)[:86] + "=="],
    "basic-auth-credentials": ['DSN = "postgres://app:Xq7!v9Lw2@db.internal/app"', "ftp://u:Zq9xWv2@host"],
    "cloudant-credentials": ["cloudant_apikey", "CL-PASS", "clou_token", "clpw", "x.Cloudant.com",
                             f'cloudant_password = "{HEX64}"', f"https://user:{HEX64}@acct.cloudant.com"],
    "discord-bot-token": ["M" + B64[:24] + "." + B64[24:30] + "." + B64[:27]],
    "github-token": ["x = 'ghp_" + "a1B2" * 9 + "'", "GHS_" + "a1B2" * 9],
    "gitlab-token": [f"{prefix}{B64[:20]}" for prefix in ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-")]
                    + ["GR1348941" + B64[:20], "glcbt-" + B64[:20], "glimt-" + B64[:25], "glptt-" + B64[:40],
                       "glagent-" + B64[:50], "gloas-" + (B64 * 2)[:64]],
    "ibm-cloud-iam-key": ["IBM_CLOUD_IAM_API_KEY = " + "a1B2-c3D4_" * 4 + "e5F6"],
    "ibm-cos-hmac-credentials": ["secret_access_key", "SECRET-KEY", "secretkey", f'secret_access_key = "{HEX64[:48]}"'],
    "jwt": [JWT],
    "mailchimp-access-key": ["abc-us12", "0123456789abcdef0123456789abcdef-us12"],
    "npm-token": ["//registry.npmjs.org/:_authToken=npm_" + B64[:36]],
    "openai-token": ["sk-proj-" + B64[:20] + "T3BlbkFJ" + B64[20:40]],
    "pypi-token": ["pypi-AgEIcHlwaS5vcmc" + B64 + B64[:20], "pypi-AgENdGVzdC5weXBpLm9yZw" + B64 + B64[:20]],
    "sendgrid-api-key": ["SG." + B64[:22] + "." + B64[:43]],
    "slack-token": ["xoxb-123456789012-abc", "XOXP-1-a", "https://hooks.slack.com/services/T0/B1/x",
                    "HTTPS://HOOKS.SLACK.COM/services/T0/B1/x"],
    "softlayer-credentials": ["softlayer_api_key", "SL_PW", "slpass", "api.SoftLayer.com",
                              f'softlayer_api_key = "{HEX64}"', f"https://api.softlayer.com/soap/v3/{HEX64}"],
    "square-oauth-secret": ["sq0csp-" + B64[:43]],
    "stripe-access-key": ["rk_live_" + "a1B2" * 6, "sk_live_" + "a1B2" * 6],
    "telegram-bot-token": [":" + "A1_-" * 9, "110201543:" + "A1b2C3d4E5" * 3 + "f6G7h"],
    "twilio-api-key": ["AC" + HEX64[:32], "SK" + HEX64[:32]],
    "high-entropy-string": ['signing_key = "Zx9Qp2Lm7Rt4Vb8Nc1Hs6Kd3Jf5Gw0Ya"', "k = `Zx9Qp2Lm7Rt4Vb8Nc1Hs6Kd3Jf5Gw0Ya`"],
    "cut-token": ["return Github('" + GITHUB_TOKEN[:22], "t = 'xoxb-1234", "k = AKIAQ7N3", "a = eyJhbGci"],
}  # fmt: skip


def test_a_rule_only_runs_where_its_kinds_literals_are():
    """LITERALS is a necessary condition of a finding: every text a kind's gate matches,
    or its gate and one of its rules, holds them; every kind has an example its rules
    find; and ordinary code opens none of the costly rules."""
    scan = secrets_module.scanner()
    assert set(KIND_EXAMPLES) == set(secrets_module.LITERALS) == {r.kind for r in scan.rules}
    found = set()
    for rule, index in zip(scan.rules, scan.rule_screens, strict=True):
        screen = scan.screens[index]
        for text in KIND_EXAMPLES[rule.kind]:
            if rule.pattern.search(text) or any(gate.search(text) for gate in rule.gates):
                assert screen.opens(text, text.lower()), (rule.kind, text)
            if rule.pattern.search(text):
                found.add(rule.kind)
    assert found == set(KIND_EXAMPLES)  # every kind has an example its rules find
    code = "def parse_token(self, key):\n    return self.tokens[key].strip()\n"
    opened = {rule.kind for rule, i in zip(scan.rules, scan.rule_screens, strict=True)
              if scan.screens[i].opens(code, code.lower())}  # fmt: skip
    assert opened <= {"discord-bot-token", "telegram-bot-token"}, opened  # "." and ":", their regexes are cheap


def test_the_screens_hide_no_finding(monkeypatch):
    """With every screen forced open, every example finds exactly what it finds screened."""
    texts = [t for examples in KIND_EXAMPLES.values() for t in examples]
    texts += [f'a = "{AWS_KEY_ID}"\nb = "{GITHUB_TOKEN}"\n{PEM}\nc = "{JWT}"', "def f(x):\n    return x.y\n"]
    screened = [find_secrets(t) for t in texts]
    every = list(range(len(secrets_module.scanner().screens)))
    monkeypatch.setattr(secrets_module, "_open_screens", lambda scan, text, lowered: every)
    assert [find_secrets(t) for t in texts] == screened
    assert sum(map(len, screened)) >= len(KIND_EXAMPLES)


def test_screens_found_by_their_literals_are_those_that_open():
    """``_open_screens`` looks up screens by the literals they start with: the same answer
    as asking every screen, on every example, ordinary code and mixed texts; and the rules
    it runs are those of the open screens, in rule order (the earlier rule wins a tie)."""
    texts = [t for examples in KIND_EXAMPLES.values() for t in examples]
    texts += ["def parse_token(self, key):\n    return self.tokens[key].strip()\n", "", "x", "GLPAT-" + B64]
    texts += [a + "\n" + b for a, b in zip(texts, reversed(texts))]
    scan = secrets_module.scanner()
    for text in texts:
        lowered = text.lower()
        screens = secrets_module._open_screens(scan, text, lowered)
        assert screens == [i for i, s in enumerate(scan.screens) if s.opens(text, lowered)], text
        rules = [i for i, screen in enumerate(scan.rule_screens) if screen in screens]
        assert list(secrets_module._open_rules(scan, text, lowered)) == rules, text


def test_an_ibm_key_is_found_past_a_long_run_and_only_after_its_keyword():
    """The IBM rule's two gates: a 44-character run elsewhere in the text opens nothing;
    the key after its keyword is still found."""
    run = "a1B2-c3D4_" * 5
    key = "a1B2-c3D4_" * 4 + "e5F6"
    assert find_secrets(f"token_name = 'x'\nCHECKSUM = '{run}'\n") == []
    text = f"CHECKSUM = '{run}'\nIBM_CLOUD_IAM_API_KEY = {key}\n"
    assert [(f.kind, text[f.start : f.end]) for f in find_secrets(text)] == [("ibm-cloud-iam-key", key)]


def test_detect_secrets_is_imported_by_the_first_scan_not_by_the_modules_that_scan():
    """A command that reads the store (status, search, outline without a daemon) imports
    the sync's modules but scans no text: detect-secrets and what it imports (~0.3 s of
    each such command) wait for the first scan, which still finds what the rules find."""
    code = (
        "import sys\n"
        "import recalld.daemon.query, recalld.ingest.sync\n"
        "print('detect_secrets' in sys.modules)\n"
        "from recalld.ingest.secrets import redact\n"
        f"print(redact({('key = ' + repr(AWS_KEY_ID))!r})[0], 'detect_secrets' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["False", "key = '[REDACTED:aws-access-key]' True"]
