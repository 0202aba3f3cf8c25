"""No secret reaches a payload, the model or the embedding cache: redaction in vectorise,
through real syncs on both store adapters."""

from __future__ import annotations

import json

from structlog.testing import capture_logs

from recalld.ingest import redaction as redaction_module
from recalld.ingest.redaction import DERIVED_FIELDS, counting_redactions, holds_redaction, redact_draft, redacted_text
from recalld.ingest.store import MemoryFilter
from recalld.ingest.writer import MemoryDraft
from tests.ingest.test_secrets import AWS_KEY_ID, AWS_SECRET, GITHUB_TOKEN, PEM_BODY

SETTINGS_PY = f'''"""Settings."""


def connect(region="eu-west-1"):
    """Open a session. Token for the CI bot: {GITHUB_TOKEN}"""
    key_id = "{AWS_KEY_ID}"
    aws_secret_access_key = "{AWS_SECRET}"
    return Session(key_id, aws_secret_access_key, region)


def checksum(data):
    """sha256 of the payload, e.g. "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"."""
    return "123e4567-e89b-12d3-a456-426614174000"
'''
CLIENT_JS = (
    "export function signer() {\n  const key = '-----BEGIN PRIVATE KEY-----\\n' +\n"
    + "".join(f"    '{line}\\n' +\n" for line in PEM_BODY)
    + "    '-----END PRIVATE KEY-----\\n';\n  return sign(key);\n}\n"
)
SECRETS = (AWS_KEY_ID, AWS_SECRET, GITHUB_TOKEN, *PEM_BODY)
ORDINARY = ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "123e4567-e89b-12d3-a456-426614174000")


def secret_repo(git_repo):  # type: ignore[no-untyped-def]
    git_repo.write("app/settings.py", SETTINGS_PY)
    git_repo.write("web/client.js", CLIENT_JS)
    git_repo.commit(f"Add settings\n\nRotated the bot token, old one was {GITHUB_TOKEN}")
    return git_repo


def recording(embedder):  # type: ignore[no-untyped-def]
    seen: list[str] = []
    encode = embedder.encode

    def spy(texts):  # type: ignore[no-untyped-def]
        seen.extend(texts)
        return encode(texts)

    embedder.encode = spy
    return seen


def everything(harness) -> str:  # type: ignore[no-untyped-def]
    points = harness.store.scroll(MemoryFilter(record=None, deprecated=None))
    return json.dumps([p.payload for p in points])


def test_no_secret_reaches_a_payload_the_model_or_the_cache(harness, git_repo, tmp_path):
    repo = secret_repo(git_repo)
    embedded_texts = recording(harness.embedder)
    with capture_logs() as logs:
        result = harness.sync(repo)
    stored = everything(harness)
    assert len([m for m in harness.memories() if m.payload["type"] == "structural"]) == 5
    assert result.embedded == result.added + result.tasks_added  # symbols, project, the commit
    for secret in SECRETS:
        assert secret not in stored and not any(secret in t for t in embedded_texts), secret
    for ordinary in ORDINARY:
        assert ordinary in stored
    assert "[REDACTED:github-token]" in stored and "[REDACTED:private-key]" in stored
    connect = next(m.payload for m in harness.memories() if m.payload["qualname"] == "connect")
    assert connect["docstring"] == "Open a session. Token for the CI bot: [REDACTED:github-token]"
    assert 'aws_secret_access_key = "[REDACTED:aws-access-key]"' in connect["text"]
    cache = (tmp_path / "state" / "embeddings.db").read_bytes()
    assert not any(s.encode() in cache for s in SECRETS)
    # settings.py module and connect(): 3 secrets each; client.js module and signer(): the key;
    # the commit's task memory: the token in its message
    assert result.secrets_redacted == 9
    task = next(m.payload for m in harness.memories(types=("task",)))
    assert "[REDACTED:github-token]" in task["body"] and "[REDACTED:github-token]" in task["text"]
    redacted = [e for e in logs if e["event"] == "secret redacted"]  # one warning per file, the task's own
    assert len(redacted) == 3 and sum(e["secrets"] for e in redacted) == 9
    assert all(e["repo"] == "r" and len(e["at"]) == e["secrets"] for e in redacted)
    assert {k for e in redacted for k in e["kinds"]} == {"github-token", "aws-access-key", "private-key"}
    settings = next(e for e in redacted if e["path"] == "app/settings.py")
    assert settings["memories"] == 2 and settings["secrets"] == 6
    # the docstring repeats a secret of the text
    assert [p for p in settings["at"] if p.startswith("connect ")] == ["connect text:3", "connect text:4", "connect text:5"]
    (task_log,) = [e for e in redacted if e["path"] is None]
    assert task_log["memory"] and task_log["secrets"] == 1
    assert not any(s in repr(logs) for s in SECRETS)


def test_a_memory_with_many_secrets_logs_one_warning():
    tokens = [f"ghp_{n:02d}" + GITHUB_TOKEN[6:] for n in range(25)]
    text = "\n".join(f"TOKEN_{n} = '{token}'" for n, token in enumerate(tokens))
    with capture_logs() as logs, counting_redactions() as tally:
        clean = redact_draft(MemoryDraft("id-many", text, {"repo": "r", "path": "tokens.py", "text": text}))
    assert not any(token in repr(clean) for token in tokens) and tally.count == 25
    (warning,) = [e for e in logs if e["event"] == "secret redacted"]
    assert warning["secrets"] == 25 and warning["kinds"] == ["github-token"] and warning["path"] == "tokens.py"
    assert warning["at"] == [f"id-many text:{n}" for n in range(1, 21)] and warning["more"] == 5
    assert warning["memories"] == 1  # in a sync, one warning a file: the memory named by its id (no qualname)


def test_redaction_is_stable_across_syncs(harness, git_repo):
    repo = secret_repo(git_repo)
    first = harness.sync(repo)
    again = harness.sync(repo)
    assert (again.added, again.modified, again.embedded, again.secrets_redacted) == (0, 0, 0, 0)
    harness.indexer.remove_repo("r")
    rebuilt = harness.sync(repo, full=True)  # same redacted texts: every vector from the cache
    assert (rebuilt.added, rebuilt.embedded, rebuilt.secrets_redacted) == (first.added, 0, first.secrets_redacted)


def test_every_string_of_a_payload_is_redacted():
    payload = {
        "record": "memory", "type": "task", "repo": "r", "path": None,
        "subject": f"Use {AWS_KEY_ID}", "body": f"token {GITHUB_TOKEN}",
        "files": ["a.py", {"note": "-----BEGIN EC PRIVATE KEY-----\n" + PEM_BODY[0] + "\n-----END EC PRIVATE KEY-----"}],
        "renames": ("x", f'"{AWS_SECRET}"'), "start_line": 3,
    }  # fmt: skip
    draft = MemoryDraft("id-1", f"commit: Use {AWS_KEY_ID}", payload)
    with counting_redactions() as tally:
        clean = redact_draft(draft)
    assert redact_draft(draft) == clean  # deterministic
    assert not any(s in repr(clean) for s in SECRETS)
    assert clean.payload["files"][0] == "a.py" and isinstance(clean.payload["renames"], tuple)
    assert clean.payload["start_line"] == 3 and clean.text == "commit: Use [REDACTED:aws-access-key]"
    assert tally.count == 4  # key id (text and subject: once), token, private key, secret key
    untouched = MemoryDraft("id-2", "def f(): pass", {"text": "def f(): pass"})
    assert redact_draft(untouched) is untouched
    # what a store holds is known to hold a redaction wherever it sits (a task memory's
    # list of symbols past the 40 its text names), so that a new release's rules reach it
    assert holds_redaction(clean.payload) and not holds_redaction(untouched.payload)
    assert holds_redaction({"text": "ok", "symbols": [{"path": "a.py", "added": ["[REDACTED:artifactory-credentials]"]}]})


def test_fields_recalld_derives_are_not_scanned(monkeypatch):
    from recalld.ingest.secrets import forget_clean

    forget_clean()  # a string an earlier test found clean is not scanned again
    scanned: list[str] = []
    real = redaction_module.redact
    monkeypatch.setattr(redaction_module, "redact", lambda text: scanned.append(text) or real(text))
    derived = {name: f"value of {name}" for name in DERIVED_FIELDS}
    payload = {**derived, "qualname": "Outer.f", "history": [{"valid_from_commit": "c0", "note": "n"}]}
    redact_draft(MemoryDraft("id-3", "def f(): pass", payload))
    assert sorted(scanned) == sorted(["def f(): pass", "Outer.f", "n"])


def test_a_string_found_clean_before_is_not_handed_to_the_scanner_again(monkeypatch):
    from recalld.ingest.secrets import forget_clean, redact

    forget_clean()
    redact("pkg/config_loader.py")  # found clean (another memory of the file, say)
    scanned: list[str] = []
    real = redaction_module.redact
    monkeypatch.setattr(redaction_module, "redact", lambda text: scanned.append(text) or real(text))
    payload = {"path": "pkg/config_loader.py", "qualname": "Loader.load_config", "start_line": 3, "docstring": None}
    redact_draft(MemoryDraft("id-4", "def load_config(): pass", payload))
    assert sorted(scanned) == ["Loader.load_config", "def load_config(): pass"]


def test_a_string_inside_a_clean_text_is_clean_without_a_scan(monkeypatch):
    from recalld.ingest.secrets import forget_clean

    forget_clean()
    scanned: list[str] = []
    real = redaction_module.redact
    monkeypatch.setattr(redaction_module, "redact", lambda text: scanned.append(text) or real(text))
    # alone, the docstring ends in what looks like a token cut short; in the text it does not
    docstring = "Signs in with the key named ghp_rotation"
    text = f'python function sign_in\ndef sign_in(key):\n    """{docstring}"""\n    return key'
    payload = {"path": "auth.py", "name": "sign_in", "qualname": "sign_in", "signature": "def sign_in(key):",
               "docstring": docstring, "text": text}  # fmt: skip
    draft = MemoryDraft("id-5", text, payload)
    assert redact_draft(draft) is draft
    assert sorted(scanned) == ["auth.py", text]
    cut = MemoryDraft("id-6", "python function sign_in\ndef sign_in(key):", payload)  # the docstring is not in it
    assert redact_draft(cut).payload["docstring"] == "Signs in with the key named [REDACTED:cut-token]"
    dirty = f'def sign_in(key="{GITHUB_TOKEN}"):'  # a text with a secret vouches for nothing inside it
    redacted = redact_draft(MemoryDraft("id-7", dirty, {"signature": dirty, "name": "sign_in"}))
    assert GITHUB_TOKEN not in repr(redacted) and redacted.payload["name"] == "sign_in"


def test_a_symbol_key_of_clean_parts_is_kept_as_it_was_made():
    from recalld.ingest.plan import Scope, symbol_key

    # a branch ending in digits, then a long file name: joined, they look like a Telegram bot token
    parts = {"repo": "r", "branch": "release-20240101", "path": "Makefile_for_the_whole_project_build_x",
             "kind": "module", "qualname": "<module>"}  # fmt: skip
    key = symbol_key(Scope("r", "release-20240101"), parts["path"], "module", "<module>")
    payload = {**parts, "symbol_key": key, "text": "all: build"}
    assert redact_draft(MemoryDraft("id-8", "all: build", payload)).payload["symbol_key"] == key
    secret_path = f"keys/{GITHUB_TOKEN}.txt"  # a part with a secret: the key is scanned, and redacted
    leaky = {**parts, "path": secret_path, "symbol_key": symbol_key(Scope("r", "main"), secret_path, "module", "<module>")}
    redacted = redact_draft(MemoryDraft("id-9", "all: build", leaky)).payload
    assert GITHUB_TOKEN not in redacted["symbol_key"] and GITHUB_TOKEN not in redacted["path"]
    forged = {**parts, "symbol_key": f"r:main:x:module:{GITHUB_TOKEN}"}  # not what its parts make
    assert GITHUB_TOKEN not in redact_draft(MemoryDraft("id-10", "all: build", forged)).payload["symbol_key"]


def test_a_text_scanned_ahead_is_not_scanned_again_in_its_sync(monkeypatch):
    scanned: list[str] = []
    real = redaction_module.redact
    monkeypatch.setattr(redaction_module, "redact", lambda text: scanned.append(text) or real(text))
    clean, dirty = "def clean(): return 1", f'def dirty(): return "{GITHUB_TOKEN}"'
    with counting_redactions():
        assert redacted_text(clean) == clean and GITHUB_TOKEN not in redacted_text(dirty)
        redact_draft(MemoryDraft("a", clean, {"text": clean}))
        assert GITHUB_TOKEN not in redact_draft(MemoryDraft("b", dirty, {"text": dirty})).text
    assert scanned == [clean, dirty, dirty]  # a secret is found again: its draft reports it
    with counting_redactions():  # another sync starts afresh
        redacted_text(clean)
    assert scanned[-1] == clean


def test_keyword_vectors_never_see_a_secret(harness, git_repo):
    from recalld.ingest.sparse import query_vector

    filler = "".join(f"# the quarterly ledger reconciliation step {i}\n" for i in range(60))  # past max_chars
    git_repo.write("ledger.py", f'{filler}LEDGER_TOKEN = "{GITHUB_TOKEN}"\n')
    git_repo.commit("ledger")
    result = harness.sync(git_repo)
    assert result.secrets_redacted == 1  # only in the module's keyword material, past the embedded text
    everywhere = MemoryFilter(repo="r")
    assert harness.store.hybrid_search(None, query_vector("quarterly ledger reconciliation"), everywhere, 5)
    assert not harness.store.hybrid_search(None, query_vector(GITHUB_TOKEN), everywhere, 5)
    draft = MemoryDraft("id-3", "short text", {"text": "short text"}, keywords=f"token = '{GITHUB_TOKEN}'")
    assert redact_draft(draft).keywords == "token = '[REDACTED:github-token]'"


def test_fields_read_again_are_redacted_as_a_sync_writes_them_and_nothing_logged():
    """``redacted_fields`` (an as-of answer's signature, read from an older commit) judges
    a field as ``redact_payload`` does: against the memory's text where that is clean."""
    from recalld.ingest.redaction import redacted_fields

    alone = {"signature": "def npm_version"}  # alone, a token's prefix cut short at the end
    leaking = {"signature": f'def sign(key="{GITHUB_TOKEN}")'}
    with capture_logs() as logs:
        assert redacted_fields(alone) == {"signature": "def [REDACTED:cut-token]"}
        assert redacted_fields(alone, text=lambda: "ruby method Releaser.npm_version\ndef npm_version\nend") is alone
        assert GITHUB_TOKEN not in redacted_fields(leaking, text=lambda: leaking["signature"])["signature"]
    assert not logs
