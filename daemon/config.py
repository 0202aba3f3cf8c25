"""Configuration: where state lives, and config.toml loaded and validated once.

Every option, its type and its default is declared in ``SCHEMA``; config/recalld.example.toml
documents the same list. An unknown key or a wrong type is an error naming the key.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from recalld.ingest.diskspace import DEFAULT_MIN_FREE_MB
from recalld.ingest.errors import RecalldError
from recalld.ingest.files import DEFAULT_EXCLUDE, DerivedOptions, IndexOptions
from recalld.ingest.store import DEFAULT_SEAL_OVER
from recalld.parsers.registry import DEFAULT_ARCHITECTURE_GLOBS, DEFAULT_DECISION_GLOBS

if TYPE_CHECKING:
    from recalld.ingest.embed_select import EmbeddingSettings

# A test's fused score is multiplied by this among other memories (daemon/retrieve.py):
# about seven places down in a fused ranking (0.9 / 61 ~ 1 / 68). 1: tests ranked as code.
TEST_WEIGHT = 0.9

# section -> option -> (type, default)
SCHEMA: dict[str, dict[str, tuple[type, Any]]] = {
    "store": {
        "url": (str, ""),
        "api_key": (str, ""),
        "collection": (str, "recalld"),
        "min_free_mb": (int, DEFAULT_MIN_FREE_MB),
        "seal_over": (int, DEFAULT_SEAL_OVER),
    },
    "embedding": {
        "model": (str, "default"),
        "backend": (str, "auto"),
        "device": (str, "cpu"),
        "batch_size": (int, 64),
        "max_chars": (int, 1500),
        "test_max_chars": (int, 150),
        "max_tokens": (int, 128),
        "words_only": (bool, True),
    },
    "index": {
        "max_file_bytes": (int, 1 << 20),
        "exclude": (list, list(DEFAULT_EXCLUDE)),
        "honour_gitattributes": (bool, True),
        "skip_generated": (bool, True),
    },
    "memories": {
        "debt": (bool, True),
        "decisions": (bool, True),
        "preferences": (bool, True),
        "project": (bool, True),
        "decision_globs": (list, list(DEFAULT_DECISION_GLOBS)),
        "architecture_globs": (list, list(DEFAULT_ARCHITECTURE_GLOBS)),
    },
    "tasks": {
        "backfill_commits": (int, 500),
        "writer_commits": (int, 10000),
        "merged_commits": (int, 1000),
    },
    "daemon": {
        "host": (str, "127.0.0.1"),
        "port": (int, 8765),
        "socket": (str, ""),
        "workers": (int, 2),
        "settle_ms": (int, 150),
        "watch": (bool, True),
        "reconcile_minutes": (int, 10),
        "retention_days": (int, 90),
        "journal_keep_days": (int, 7),
        "restart_over_mb": (int, 128),
    },
    "search": {
        "test_weight": (float, TEST_WEIGHT),
    },
    "trust": {
        "untrusted_branches": (list, []),
    },
    "webhooks": {
        "github_secret": (str, ""),
        "gitlab_token": (str, ""),
        "max_body_bytes": (int, 1 << 20),
    },
    "log": {
        "level": (str, "info"),
        "format": (str, "auto"),
    },
}
LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("auto", "json", "console")
EMBEDDING_BACKENDS = ("auto", "onnx", "torch")  # see ingest/embed_select.py
MIN_MAX_TOKENS = 16
SEARCH_LIMIT = 1000  # the most results one search returns (CLI, HTTP API)
OUTLINE_LIMIT = 500  # symbols an outline lists at most, by default
OUTLINE_MAX = 5000  # and when asked for more
SYMBOLS_MAX = 5000  # versions of a symbol an answer lists at most when a limit is asked (MCP asks 10)
RECENT_LIMIT = 20  # the latest commits (or symbol events) `changes` lists without --since, by default
RECENT_MAX = 500  # and when asked for more
CHANGES_LIMIT = 200  # changes `recalld changes --since` lists at most, by default
CHANGES_MAX = 5000  # and when asked for more
_TOLD_MISSING: set[Path] = set()  # the configuration files said to be missing (``load_config``)
MEMORY_TYPES = ("structural", "task", "decision", "debt", "preference", "project", "note")  # search's --type


@dataclass(frozen=True, slots=True)
class Config:
    home: Path  # state directory
    config_path: Path
    values: dict[str, dict[str, Any]]

    def get(self, section: str, key: str) -> Any:
        return self.values[section][key]

    @property
    def store_url(self) -> str | None:
        return self.get("store", "url") or None

    @property
    def store_api_key(self) -> str | None:
        return os.environ.get("RECALLD_QDRANT_API_KEY") or self.get("store", "api_key") or None

    @property
    def store_path(self) -> Path:
        return self.home / "qdrant"

    @property
    def state_db(self) -> Path:
        return self.home / "state.db"

    @property
    def journal_db(self) -> Path:
        return self.home / "journal.db"

    @property
    def token_file(self) -> Path:
        return self.home / "api-token"

    @property
    def runtime_file(self) -> Path:
        return self.home / "daemon.json"

    @property
    def github_secret(self) -> str:
        return os.environ.get("RECALLD_GITHUB_SECRET") or self.get("webhooks", "github_secret")

    @property
    def gitlab_token(self) -> str:
        return os.environ.get("RECALLD_GITLAB_TOKEN") or self.get("webhooks", "gitlab_token")

    @property
    def embedding_cache(self) -> Path:
        return self.home / "embeddings.db"

    @property
    def model_cache(self) -> Path:
        """Exported (ONNX) models; $RECALLD_MODEL_CACHE shares one cache between state dirs."""
        if os.environ.get("RECALLD_MODEL_CACHE"):
            return Path(os.environ["RECALLD_MODEL_CACHE"]).expanduser()
        return self.home / "models"

    def embedding_settings(self) -> EmbeddingSettings:
        from recalld.ingest.embed_select import EmbeddingSettings

        section = self.values["embedding"]
        return EmbeddingSettings(
            model_cache=self.model_cache,
            model=section["model"],
            backend=section["backend"],
            device=section["device"],
            batch_size=section["batch_size"],
            max_tokens=section["max_tokens"],
            words_only=section["words_only"],
            test_max_chars=section["test_max_chars"],
        )

    def index_options(self) -> IndexOptions:
        return IndexOptions(
            max_file_bytes=self.get("index", "max_file_bytes"),
            exclude=tuple(self.get("index", "exclude")),
            honour_gitattributes=self.get("index", "honour_gitattributes"),
            skip_generated=self.get("index", "skip_generated"),
            max_embed_chars=self.get("embedding", "max_chars"),
            test_embed_chars=self.get("embedding", "test_max_chars"),
            memories=self.derived_options(),
            untrusted_branches=tuple(self.get("trust", "untrusted_branches")),
            backfill_commits=self.get("tasks", "backfill_commits"),
            writer_commits=self.get("tasks", "writer_commits"),
            merged_commits=self.get("tasks", "merged_commits"),
        )

    def derived_options(self) -> DerivedOptions:
        memories = self.values["memories"]
        return DerivedOptions(
            debt=memories["debt"],
            decisions=memories["decisions"],
            preferences=memories["preferences"],
            project=memories["project"],
            decision_globs=tuple(memories["decision_globs"]),
            architecture_globs=tuple(memories["architecture_globs"]),
        )


def state_home(environ: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Where recalld keeps its state, by ``environ`` (this process's) and for a user whose
    home is ``home`` (this one's)."""
    environ = os.environ if environ is None else environ
    if environ.get("RECALLD_HOME"):
        return Path(environ["RECALLD_HOME"]).expanduser()
    base = environ.get("XDG_DATA_HOME") or str((home or Path.home()) / ".local" / "share")
    return Path(base).expanduser() / "recalld"


def config_file() -> Path:
    if os.environ.get("RECALLD_CONFIG"):
        return Path(os.environ["RECALLD_CONFIG"]).expanduser()
    if os.environ.get("RECALLD_HOME"):
        return Path(os.environ["RECALLD_HOME"]).expanduser() / "config.toml"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "recalld" / "config.toml"


# What decides where recalld keeps its state and reads its configuration (state_home, config_file).
LOCATION_VARIABLES = ("RECALLD_HOME", "RECALLD_CONFIG", "XDG_DATA_HOME", "XDG_CONFIG_HOME")


def locations(environ: Mapping[str, str]) -> dict[str, str]:
    """The location variables of ``environ`` that are set, made absolute (``~`` expanded):
    what a systemd unit or a git hook installed from this shell runs with, so that it uses
    the store, registry and configuration of this shell's commands, whatever environment
    the user manager or git has then."""
    return {name: str(Path(environ[name]).expanduser().resolve()) for name in LOCATION_VARIABLES if environ.get(name)}


def load_config() -> Config:
    path = config_file()
    try:  # none there is the defaults (a state dir that is a file: _check_home says so); a directory is an error
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        raw = {}
        if os.environ.get("RECALLD_CONFIG") and path not in _TOLD_MISSING:  # set, and mistyped: said once a process
            _TOLD_MISSING.add(path)
            print(f"recalld: warning: $RECALLD_CONFIG names no file ({path}): the defaults are used", file=sys.stderr)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RecalldError(f"{path}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise RecalldError(f"{path}: cannot read: {exc.strerror}") from exc
    values = validate(raw, source=str(path))
    home = state_home()
    _check_home(home)
    return Config(home=home, config_path=path, values=values)


def _check_home(home: Path) -> None:
    """A state directory that is a file, or lies under one, or that cannot be written
    (a read-only mount, another user's), is an error naming the variable it came from: the
    first command to open it failed with a traceback (NotADirectoryError, FileExistsError,
    "Read-only file system", sqlite's "unable to open database file")."""
    try:
        place = next((p for p in (home, *home.parents) if p.exists()), None)
        if place is None or (place.is_dir() and os.access(place, os.W_OK | os.X_OK)):
            return
    except OSError:  # a parent it may not look into: the first use of the directory says so
        return
    named = ("$RECALLD_HOME" if os.environ.get("RECALLD_HOME") else
             "$XDG_DATA_HOME/recalld" if os.environ.get("XDG_DATA_HOME") else "~/.local/share/recalld")  # fmt: skip
    if place.is_dir():  # every command writes there (its locks, the registry): each failed with a traceback
        if place == home:
            raise RecalldError(f"the state directory {named} is not writable: {home}")
        raise RecalldError(f"the state directory {named} cannot be made: {place} is not writable ({home})")
    if place == home:
        raise RecalldError(f"the state directory {named} is not a directory: {home}")
    raise RecalldError(f"the state directory {named} cannot be made: {place} is not a directory ({home})")


def validate(raw: dict[str, Any], *, source: str = "config") -> dict[str, dict[str, Any]]:
    values: dict[str, dict[str, Any]] = {}
    for section, options in raw.items():
        if section not in SCHEMA and not isinstance(options, dict):  # a key written above every [section]
            homes = " or ".join(f"[{name}]" for name, known in SCHEMA.items() if section in known)
            if not homes:
                sections = ", ".join(SCHEMA)
                raise RecalldError(f"{source}: unknown option {section} (options go under a section: {sections})")
            raise RecalldError(f"{source}: option {section} is outside any section: it goes under {homes}")
        if section not in SCHEMA:
            raise RecalldError(f"{source}: unknown section [{section}] (known: {', '.join(SCHEMA)})")
        if not isinstance(options, dict):
            raise RecalldError(f"{source}: [{section}] must be a table")
        for key in options:
            if key not in SCHEMA[section]:
                raise RecalldError(f"{source}: unknown option {section}.{key}")
    for section, options in SCHEMA.items():
        given = raw.get(section, {})
        values[section] = {}
        for key, (kind, default) in options.items():
            value = given.get(key, default)
            if not _is_type(value, kind):
                named = "list of strings" if kind is list else kind.__name__
                raise RecalldError(f"{source}: {section}.{key} must be of type {named}, got {value!r}")
            values[section][key] = float(value) if kind is float else value  # a TOML 1 read as 1.0
    _check_ranges(values, source)
    return values


def _is_type(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:  # TOML's 1 is an int
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is list:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, kind)


def _check_ranges(values: dict[str, dict[str, Any]], source: str) -> None:
    positive = [
        ("embedding", "batch_size"),
        ("embedding", "max_chars"),
        ("index", "max_file_bytes"),
        ("daemon", "workers"),
        ("daemon", "reconcile_minutes"),
        ("daemon", "journal_keep_days"),
        ("webhooks", "max_body_bytes"),
    ]
    for section, key in positive:
        if values[section][key] <= 0:
            raise RecalldError(f"{source}: {section}.{key} must be greater than 0")
    for section, key in (("tasks", "backfill_commits"), ("tasks", "writer_commits"), ("tasks", "merged_commits"),
                         ("embedding", "test_max_chars"), ("store", "min_free_mb"), ("store", "seal_over")):
        if values[section][key] < 0:
            raise RecalldError(f"{source}: {section}.{key} must not be negative")
    if min(values["daemon"][key] for key in ("retention_days", "settle_ms", "restart_over_mb")) < 0:
        raise RecalldError(f"{source}: daemon.retention_days, settle_ms and restart_over_mb must not be negative")
    if not 0 <= values["daemon"]["port"] <= 65535:
        raise RecalldError(f"{source}: daemon.port must be between 0 and 65535")
    for key in ("decision_globs", "architecture_globs"):
        if any(not glob.strip() for glob in values["memories"][key]):
            raise RecalldError(f"{source}: memories.{key} must not contain empty globs")
    if any(not pattern.strip() for pattern in values["trust"]["untrusted_branches"]):
        raise RecalldError(f"{source}: trust.untrusted_branches must not contain an empty pattern")
    if any(not glob.strip() for glob in values["index"]["exclude"]):
        raise RecalldError(f"{source}: index.exclude must not contain empty globs")
    if not values["store"]["collection"].strip():
        raise RecalldError(f"{source}: store.collection must not be empty")
    if not re.fullmatch(r"(?:cpu|cuda|mps|xpu)(?::\d+)?", values["embedding"]["device"]):  # torch's own: a traceback
        raise RecalldError(f"{source}: embedding.device must be a torch device: cpu, cuda, cuda:N, mps or xpu")
    if values["embedding"]["backend"] not in EMBEDDING_BACKENDS:
        raise RecalldError(f"{source}: embedding.backend must be one of {', '.join(EMBEDDING_BACKENDS)}")
    max_tokens = values["embedding"]["max_tokens"]
    if max_tokens != 0 and max_tokens < MIN_MAX_TOKENS:
        raise RecalldError(
            f"{source}: embedding.max_tokens must be 0 (the model's own limit) or at least {MIN_MAX_TOKENS}"
        )
    if not 0 < values["search"]["test_weight"] <= 1:
        raise RecalldError(f"{source}: search.test_weight must be above 0 and at most 1 (1: tests ranked as code)")
    if values["log"]["level"] not in LOG_LEVELS:
        raise RecalldError(f"{source}: log.level must be one of {', '.join(LOG_LEVELS)}")
    if values["log"]["format"] not in LOG_FORMATS:
        raise RecalldError(f"{source}: log.format must be one of {', '.join(LOG_FORMATS)}")
    url = values["store"]["url"]
    if url and not _server_url(url):
        raise RecalldError(
            f"{source}: store.url must be a Qdrant server's URL (http://localhost:6333, https://HOST:6333),"
            f" got {url!r}"
        )


def _server_url(url: str) -> bool:
    """An http(s) URL with a host and, if any, a valid port; as qdrant-client, a host
    alone (``localhost:6333``, ``qdrant``) is read as http."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        parts.port  # noqa: B018 - raises on a port that is not a number in range
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and not any(c.isspace() for c in url)
