"""Retrieval queries from a project's release notes, for bench_retrieval.py --queries.

Not part of the test run. For a repository whose commits are releases (one commit per
version, each with its release notes in the tree, as a history rebuilt from a project's
published source archives), every entry of a patch release's notes becomes a query: a
bullet ("Fixed a crash of ``JSONObject()`` when using server-side binding…") or a
security section (its title and first paragraph), with reST markup dropped. Its relevant
files are the code files that release changed against the commit before it, narrowed to
those that define a name the entry marks up as code (``QuerySet.union()`` → ``union``),
else those that use one, else none narrowed: which file fixed which entry is not recorded.

Written by people, about someone else's code, these queries complement the commit
subjects bench_retrieval.py takes from a repository's own history. Output: JSON lines
``{"commit", "text", "relevant": [paths]}``.

    python tests/bench/release_queries.py --repo PATH --notes 'docs/releases/{version}.txt' \
        --code 'django/' > queries.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)\s*$")  # a patch release: the subject ends in X.Y.Z, Z > 0
CODE_SUFFIXES = (".py", ".js", ".ts", ".go", ".rs", ".java")
LOCALE = re.compile(r"(^|/)locale/")
MIN_WORDS = 5
_ROLE = re.compile(r":[\w:-]+:`[~.]*([^`<]*?)\s*(?:<[^>]*>)?`")  # :meth:`~a.b <target>` -> a.b
_LITERAL = re.compile(r"``([^`]+)``")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?=\(?\)?$)")  # a code reference's last name: a.b.c() -> c
_TICKETS = re.compile(r"\((?::ticket:`\d+`[\s,]*(?:and\s+)?)+\)|:ticket:`\d+`")  # (:ticket:`1` and :ticket:`2`)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def plain(text: str) -> str:
    """reST inline markup dropped: roles to their text, literals unquoted, tickets gone."""
    text = _TICKETS.sub("", text)
    text = _ROLE.sub(r"\1", text)
    text = text.replace("``", "").replace("`", "").replace("\\", "")
    return re.sub(r"\s+", " ", text).strip(" .")


def names(raw: str) -> set[str]:
    """The code an entry names in markup (``QuerySet.union()``, :meth:`~a.b`), by last name."""
    refs = [m.group(1) for m in _ROLE.finditer(raw)] + _LITERAL.findall(raw)
    return {m.group(0) for ref in refs if (m := _NAME.search(ref.strip()))}


def entries(notes: str) -> list[tuple[str, set[str]]]:
    """Bullets, and security sections (``CVE-…: title`` underlined) as title + first paragraph."""
    lines = notes.splitlines()
    out: list[str] = []
    bullet: list[str] = []
    for n, line in enumerate(lines):
        if bullet and (not line.strip() or line.startswith("* ")):
            out.append(" ".join(bullet))
            bullet = []
        if line.startswith("* "):
            bullet = [line[2:]]
        elif bullet:
            bullet.append(line.strip())
        elif line.startswith("CVE-") and n + 1 < len(lines) and set(lines[n + 1].strip()) == {"="}:
            body = []
            for rest in lines[n + 2 :]:
                if body and not rest.strip():
                    break
                if rest.strip():
                    body.append(rest.strip())
            out.append(line.split(":", 1)[-1].strip() + ". " + " ".join(body))
    if bullet:
        out.append(" ".join(bullet))
    texts = [(plain(raw), names(raw)) for raw in out]
    return [(text, named) for text, named in texts if len(text.split()) >= MIN_WORDS]


def narrowed(relevant: list[str], sources: dict[str, str], named: set[str]) -> list[str]:
    """The files defining a name the entry refers to, else those using one, else all."""
    for pattern in (r"\b(?:def|class|function)\s+{}\b", r"\b{}\b"):
        found = [p for p in relevant if any(re.search(pattern.format(re.escape(n)), sources[p]) for n in named)]
        if found:
            return found
    return relevant


def is_code(path: str, under: str, exclude: set[str]) -> bool:
    return path.startswith(under) and path.endswith(CODE_SUFFIXES) and not LOCALE.search(path) and path not in exclude


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True, help="a repository with one commit per release")
    parser.add_argument("--notes", required=True, help="path of a release's notes, with {version}")
    parser.add_argument("--code", default="", help="only code files under this prefix are relevant")
    parser.add_argument("--exclude", action="append", default=[], help="a code file never relevant (a version stamp)")
    parser.add_argument("--max-files", type=int, default=20,
                        help="skip releases changing more code files than this (reformatting, not fixes)")
    args = parser.parse_args()
    releases = queries = 0
    for line in git(args.repo, "log", "--first-parent", "--format=%H %s").splitlines():
        commit, _, subject = line.partition(" ")
        version = VERSION.search(subject)
        if not version or version.group(3) == "0":
            continue
        changed = git(args.repo, "diff", "--name-only", "--no-renames", f"{commit}~1", commit).splitlines()
        relevant = sorted(p for p in changed if is_code(p, args.code, set(args.exclude)))
        if not relevant or len(relevant) > args.max_files:
            continue
        try:
            notes = git(args.repo, "show", f"{commit}:{args.notes.format(version='.'.join(version.groups()))}")
        except subprocess.CalledProcessError:
            continue
        releases += 1
        sources = {path: git(args.repo, "show", f"{commit}:{path}") for path in relevant}
        for text, named in entries(notes):
            queries += 1
            print(json.dumps({"commit": commit, "text": text, "relevant": narrowed(relevant, sources, named)}))
    print(f"{queries} queries from {releases} releases", file=sys.stderr)


if __name__ == "__main__":
    main()
