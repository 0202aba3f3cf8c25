"""A name a file declares more than once (``home`` and ``home#2``, one per platform):
edited code continues the version it is most alike, not the one of its ordinal mark
(``redecorated.realigned_repeats``)."""

from __future__ import annotations

from recalld.ingest.plan import FileSymbols, LiveMemory, Scope, memory_id, plan_changes
from recalld.parsers import parse

SCOPE = Scope("r", "main")

WINDOWS = '''    def home():
        """The user's home on Windows."""
        profile = os.environ.get("USERPROFILE")
        if profile:
            return profile
        return os.path.join(os.environ["HOMEDRIVE"], os.environ["HOMEPATH"])
'''
POSIX = '''    def home():
        """The user's home on posix."""
        found = os.environ.get("HOME")
        if found:
            return found
        import pwd
        return pwd.getpwuid(os.getuid()).pw_dir
'''
BOTH = f'import os\nimport sys\n\nif sys.platform == "win32":\n{WINDOWS}else:\n{POSIX}'


def dedent(code: str) -> str:
    return "".join(line[4:] for line in code.splitlines(keepends=True))


def planned(old: str, new: str) -> dict[str, tuple[str, str]]:
    """Each new function's qualname → (the old qualname whose lineage it continues, or
    "" for none; its change)."""
    before = parse("python", old.encode()).symbols
    live = [LiveMemory(memory_id(SCOPE, "paths.py", s.kind, s.qualname, s.content_hash), "paths.py", s.kind,
                       s.qualname, s.content_hash, f"lineage-{s.qualname}", s.start_line, s.end_line, blob="old")
            for s in before]  # fmt: skip
    code = {(s.kind, s.qualname): s.source for s in before}
    after = FileSymbols("paths.py", "new", "python", tuple(parse("python", new.encode()).symbols))
    p = plan_changes(scope=SCOPE, live=live, targets={"paths.py": after}, gone=(), renames={},
                     old_source=lambda mem: code.get((mem.kind, mem.qualname)))  # fmt: skip
    return {v.symbol.qualname: (v.lineage.removeprefix("lineage-") if v.lineage.startswith("lineage-") else "",
                                v.change) for v in p.new_versions if v.symbol.kind == "function"}  # fmt: skip


def test_the_branch_left_when_the_other_is_removed_continues_its_own_version():
    got = planned(BOTH, "import os\n\n\n" + dedent(POSIX))
    assert got == {"home": ("home#2", "renamed")}


def test_branches_that_traded_places_each_continue_their_own():
    posix = POSIX.replace("posix", "POSIX")
    swapped = BOTH.replace(WINDOWS, "@@").replace(POSIX, WINDOWS.replace("Windows", "Windows NT")).replace("@@", posix)
    got = planned(BOTH, swapped.replace('== "win32"', '!= "win32"'))
    assert got == {"home": ("home#2", "renamed"), "home#2": ("home", "renamed")}


def test_repeats_edited_where_they_are_continue_by_name():
    edited = BOTH.replace("USERPROFILE", "USERPROFILE_DIR").replace('"HOME"', '"XDG_HOME"')
    assert planned(BOTH, edited) == {"home": ("home", "modified"), "home#2": ("home#2", "modified")}


def test_short_repeats_are_paired_by_name():
    """Stubs too short to tell apart (``@overload``'s ``...``) keep the name's pairing."""
    old = "if X:\n    def f(a): return 1\nelse:\n    def f(a): return 2\n"
    assert planned(old, "def f(a): return 3\n") == {"f": ("f", "modified")}
