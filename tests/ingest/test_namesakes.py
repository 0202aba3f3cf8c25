"""A real history in which a module is removed and an unrelated one arrives with a
function of the same one-word name, while a class of a compound name moves to a new
file, rewritten: only the class continues (CPython 3.13's ``distutils.util.execute`` is
not its new ``sqlite3.__main__.execute``; pip 19's ``MultiDomainBasicAuth`` is 10's)."""

from __future__ import annotations

UTIL = '''"""Miscellaneous helpers for build commands."""


def execute(func, args, msg=None, verbose=0, dry_run=0):
    """Perform an action that affects the outside world, unless dry_run is set."""
    if msg is None:
        msg = "%s%r" % (func.__name__, args)
    log_info(msg)
    if not dry_run:
        func(*args)


def change_root(new_root, pathname):
    """Return pathname with new_root prepended."""
    return new_root + pathname
'''
CONSOLE = '''"""A small interactive console for SQL statements."""
import sqlite3


def execute(connection, statement, *, suppress_errors=True):
    """Run one SQL statement and print its rows, or the error it raised."""
    try:
        for row in connection.execute(statement):
            print(row)
    except sqlite3.Error as error:
        if not suppress_errors:
            raise
        print(type(error).__name__, error)
'''
DOWNLOAD = '''"""Downloading distributions."""


class MultiDomainBasicAuth:
    """Keeps a username and password per network location."""

    def __init__(self, prompting=True):
        self.prompting = prompting
        self.passwords = {}

    def __call__(self, req):
        netloc = req.url.split("/")[2]
        username, password = self.passwords.get(netloc, (None, None))
        if username is not None:
            req.auth = (username, password)
        return req


def url_to_path(url):
    """The local path a file: URL names."""
    return url[len("file://"):]
'''
AUTH = '''"""Credentials for index servers, from URLs, netrc and keyring."""


class MultiDomainBasicAuth:
    """Keeps credentials per network location, asking keyring for missing ones."""

    def __init__(self, prompting=True, index_urls=None):
        self.prompting = prompting
        self.index_urls = index_urls
        self.passwords = {}

    def _get_new_credentials(self, original_url):
        return keyring_lookup(original_url) or (None, None)
'''


def test_a_one_word_namesake_of_a_removed_module_does_not_continue_it(git_repo, harness):
    git_repo.write("legacy/util.py", UTIL)
    git_repo.write("pip/download.py", DOWNLOAD)
    git_repo.commit("release 1")
    harness.sync(git_repo)
    before = {(m.payload["path"], m.payload["qualname"]): m for m in harness.memories(types=("structural",))}

    git_repo.remove("legacy/util.py")
    git_repo.write("sqlite3/__main__.py", CONSOLE)
    git_repo.write("pip/download.py", DOWNLOAD.split("class MultiDomainBasicAuth")[0] + "def url_to_path(url):\n"
                   + DOWNLOAD.split("def url_to_path(url):\n")[1])  # fmt: skip
    git_repo.write("pip/network/auth.py", AUTH)
    git_repo.commit("release 2")
    harness.sync(git_repo)
    live = {(m.payload["path"], m.payload["qualname"]): m for m in harness.memories(types=("structural",))}
    closed = {m.id: m.payload for m in harness.memories(deprecated=1)}

    old_execute, new_execute = before[("legacy/util.py", "execute")], live[("sqlite3/__main__.py", "execute")]
    assert closed[old_execute.id]["deprecated_reason"] == "deleted"
    assert closed[old_execute.id].get("superseded_by") is None
    assert new_execute.payload["lineage"] != old_execute.payload["lineage"]

    old_auth = before[("pip/download.py", "MultiDomainBasicAuth")]
    new_auth = live[("pip/network/auth.py", "MultiDomainBasicAuth")]
    assert closed[old_auth.id]["deprecated_reason"] == "renamed"
    assert closed[old_auth.id]["superseded_by"] == new_auth.id
    assert new_auth.payload["lineage"] == old_auth.payload["lineage"]
    init = live[("pip/network/auth.py", "MultiDomainBasicAuth.__init__")]  # followed its class
    assert init.payload["lineage"] == before[("pip/download.py", "MultiDomainBasicAuth.__init__")].payload["lineage"]


def _printable(cls: str, fields: tuple[str, ...]) -> str:
    adds = "".join(f'.add("{f}", self.{f})' for f in fields)
    return f'''class {cls}:
    """A {cls.lower()} that prints its fields."""

    def to_string(self):
        return ToStringBuilder(self){adds}.build()
'''


def test_a_method_many_classes_implement_does_not_carry_a_removed_class_into_another(git_repo, harness):
    """``to_string`` has two words, but five classes of the tree implement it (Java's
    ``toString``, SQLAlchemy's ``bind_processor``): a removed ``Report``'s does not
    continue in an unrelated new ``Gauge``, however alike the two are."""
    for cls in ("Order", "Invoice", "Customer", "Supplier"):
        git_repo.write(f"models/{cls.lower()}.py", _printable(cls, ("name", "number", cls.lower())))
    git_repo.write("legacy/report.py", _printable("Report", ("title", "rows", "footer")))
    git_repo.commit("release 1")
    harness.sync(git_repo)
    before = {(m.payload["path"], m.payload["qualname"]): m for m in harness.memories(types=("structural",))}

    git_repo.remove("legacy/report.py")
    git_repo.write("widgets/gauge.py", _printable("Gauge", ("title", "level", "scale", "unit")))  # 0.82 alike
    git_repo.commit("release 2")
    harness.sync(git_repo)
    closed = {m.id: m.payload for m in harness.memories(deprecated=1)}
    old = before[("legacy/report.py", "Report.to_string")]
    assert closed[old.id]["deprecated_reason"] == "deleted" and closed[old.id].get("superseded_by") is None


LIFECYCLE = """/**
 * Retrieves the context that belongs to the closest parent component with the specified `key`.
 * Must be called during component initialisation.
 */
export function getContext(key) {
  return current_component().$$.context.get(key);
}
"""
CLIENT = """/**
 * Retrieves the context that belongs to the closest parent component with the specified `key`.
 * Must be called during component initialisation.
 */
export function getContext(key) {
  const map = context_map('getContext');
  const result = map.get(key);
  if (DEV) {
    warn_missing(key, result);
  }
  return result;
}
"""
SERVER = """export function getContext(key) {
  return context_map('getContext').get(key);
}
"""


def _rewritten(side: str) -> str:
    return "".join(f"\nexport function {side}_step_{i}(state) {{\n  return schedule_{side}(state, {i} * state.depth);\n}}\n"
                   for i in range(8))  # fmt: skip


def test_of_two_namesakes_the_one_that_kept_the_documentation_continues(git_repo, harness):
    """svelte 5 rewrote 4's runtime: ``getContext`` arrived twice, a client one that kept
    its JSDoc and a server one whose code is the more like the old. The sync reads the
    leaver's documentation from its old blob: the client's continues it."""
    git_repo.write("src/runtime/internal/lifecycle.js", LIFECYCLE)
    git_repo.commit("svelte 4")
    harness.sync(git_repo)
    old = next(m for m in harness.memories(types=("structural",)) if m.payload["qualname"] == "getContext")

    git_repo.remove("src/runtime/internal/lifecycle.js")
    git_repo.write("src/internal/client/runtime.js", CLIENT + _rewritten("client"))  # more new code than old:
    git_repo.write("src/internal/server/context.js", SERVER + _rewritten("server"))  # git pairs neither file
    git_repo.commit("svelte 5")
    harness.sync(git_repo)
    live = {m.payload["path"]: m for m in harness.memories(types=("structural",)) if m.payload["qualname"] == "getContext"}
    closed = {m.id: m.payload for m in harness.memories(deprecated=1)}
    assert closed[old.id]["superseded_by"] == live["src/internal/client/runtime.js"].id
    assert live["src/internal/server/context.js"].payload["lineage"] != old.payload["lineage"]
