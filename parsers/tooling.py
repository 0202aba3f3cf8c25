"""Preferences from tooling files: read a file as plain data, apply its rules.

    extract(spec, b'[tool.ruff]\\nline-length = 100\\n', "pyproject.toml")
      -> derived: linter "ruff" — "Code is checked with ruff (pyproject.toml [tool.ruff]: line-length=100)"

Malformed files yield no entries and a note; they never raise. The rules are data in
``tooling_rules``; this module only knows how to read each format and walk keys.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import tomllib
from collections.abc import Callable, Iterator
from typing import Any
from xml.etree import ElementTree

from recalld.parsers.base import ParseResult, Symbol, derived_entry
from recalld.parsers.globs import match_any
from recalld.parsers.registry import LanguageSpec
from recalld.parsers.tooling_rules import DEPENDENCIES, TOOLING_FILES, Key, Rule, ToolingFile

TEXTS = {
    "test_runner": "Tests run with {name}",
    "linter": "Code is checked with {name}",
    "formatter": "Code is formatted with {name}",
    "framework": "Built on {name}",
    "build_system": "Built and packaged with {name}",
    "language_version": "Requires {name} {value}",
}
MAX_SETTING = 80
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9@][A-Za-z0-9._/@-]*)")


def tooling_file(path: str) -> ToolingFile | None:
    name = posixpath.basename(path)
    return next((t for t in TOOLING_FILES if match_any(name, t.globs)), None)


def extract(spec: LanguageSpec, data: bytes, path: str) -> ParseResult:
    tooling = tooling_file(path)
    if tooling is None:
        return ParseResult(spec.name, ())
    document, problem = _read(tooling, data)
    if document is None:
        return ParseResult(tooling.format, (), syntax_errors=1, notes=(f"unreadable {tooling.format}: {problem}",))
    entries = preferences(tooling, document, posixpath.basename(path))
    return ParseResult(tooling.format, (), derived=entries)


def load(path: str, data: bytes) -> dict[str, Any] | None:
    """A tooling file as plain data, or None when it is not one or cannot be read."""
    tooling = tooling_file(path)
    return _read(tooling, data)[0] if tooling is not None else None


def _read(tooling: ToolingFile, data: bytes) -> tuple[dict[str, Any] | None, str]:
    try:
        return READERS[tooling.format](data.decode("utf-8")), ""
    except (ValueError, UnicodeDecodeError, configparser.Error, ElementTree.ParseError, RecursionError) as exc:
        return None, str(exc)


def preferences(tooling: ToolingFile, document: dict[str, Any], filename: str) -> tuple[Symbol, ...]:
    found: dict[tuple[str, str], Symbol] = {}
    for rule in tooling.rules:
        entry = _apply(rule, document, filename)
        if entry is not None:
            found.setdefault((entry.kind, entry.qualname), entry)
    for key in tooling.dependencies:
        for dependency in _dependencies(lookup(document, key)):
            hit = _dependency_rule(dependency)
            if hit is not None:
                rule = Rule(hit[0], hit[1], key)
                entry = _entry(rule, hit[1], filename, ".".join(key), dependency, "")
                found.setdefault((entry.kind, entry.qualname), entry)
    return tuple(found.values())


def lookup(document: Any, key: Key) -> Any:
    """The value at ``key`` (``*`` gathers every table's value into a list), or None."""
    current = document
    for index, part in enumerate(key):
        if not isinstance(current, dict):
            return None
        if part == "*":
            rest = key[index + 1 :]
            values = [lookup(v, rest) for v in current.values()]
            return [v for v in values if v is not None]
        if part not in current:
            return None
        current = current[part]
    return current


def _apply(rule: Rule, document: dict[str, Any], filename: str) -> Symbol | None:
    value = lookup(document, rule.key) if rule.key else document
    if value is None:
        return None
    if rule.contains and rule.contains not in str(value):
        return None
    name = rule.name or _named(rule, value)
    if not name:
        return None
    table = lookup(document, rule.settings_at) if rule.settings_at else value
    settings = _settings(table, rule.settings)
    shown = value if isinstance(value, (str, int, float)) else ""
    return _entry(rule, name, filename, ".".join(rule.key), str(shown), settings)


def _named(rule: Rule, value: Any) -> str:
    text = str(value)
    return next((name for prefix, name in rule.values if text.startswith(prefix)), "")


def _settings(table: Any, keys: tuple[str, ...]) -> str:
    if not isinstance(table, dict):
        return ""
    shown = []
    for key in keys:
        value = lookup(table, tuple(key.split(".")))
        if value is not None:
            text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
            shown.append(f"{key}={' '.join(text.split())[:MAX_SETTING]}")
    return ", ".join(shown)


def _entry(rule: Rule, name: str, filename: str, key: str, value: str, settings: str) -> Symbol:
    head = TEXTS[rule.kind].format(name=name, value=value).strip()
    where = f"{filename} [{key}]" if key else filename
    text = f"{head} ({where}{': ' + settings if settings else ''})"
    evidence = {"file": filename, "key": key, "value": value or settings}
    return derived_entry(rule.kind, name, text, extra=(("tool", name), ("evidence", evidence)))


def _dependencies(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        yield from (str(k).lower() for k in value)
    elif isinstance(value, list):
        for item in value:
            yield from _dependencies(item)
    elif isinstance(value, str):
        for line in value.splitlines():
            found = _REQUIREMENT_NAME.match(line)
            if found and not line.lstrip().startswith(("#", "-")):
                yield found.group(1).lower()


def _dependency_rule(name: str) -> tuple[str, str] | None:
    hit = DEPENDENCIES.get(name)
    if hit is not None:
        return hit
    return next((v for k, v in DEPENDENCIES.items() if k.endswith("*") and name.startswith(k[:-1])), None)


def _toml(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def _json(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def _ini(text: str) -> dict[str, Any]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(text)
    return {section: dict(parser[section]) for section in parser.sections()}


def _gomod(text: str) -> dict[str, Any]:
    document: dict[str, Any] = {"require": []}
    in_block = False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if in_block:
            in_block = line != ")"
            if in_block and line:
                document["require"].append(line.split()[0])
            continue
        words = line.split()
        if len(words) >= 2 and words[0] in ("module", "go", "toolchain"):
            document[words[0]] = words[1]
        elif words[:2] == ["require", "("]:
            in_block = True
        elif len(words) >= 2 and words[0] == "require":
            document["require"].append(words[1])
    return document


def _pom(text: str) -> dict[str, Any]:
    root = ElementTree.fromstring(text)
    strip = lambda tag: tag.rsplit("}", 1)[-1]  # noqa: E731 - namespaces off
    document: dict[str, Any] = {"properties": {}, "dependencies": []}
    for element in root.iter():
        tag = strip(element.tag)
        if tag == "properties":
            document["properties"] = {strip(p.tag): (p.text or "").strip() for p in element}
        elif tag in ("dependency", "plugin", "parent"):
            artifact = next((c.text for c in element if strip(c.tag) == "artifactId"), None)
            if artifact:
                document["dependencies"].append(artifact.strip())
    return document


_GRADLE_COORDINATE = re.compile(r"""["']([\w.-]+):([\w.-]+)(?::[^"']*)?["']""")
_GRADLE_PLUGIN = re.compile(r"""id\s*\(?\s*["']([\w.-]+)["']""")
# The Kotlin plugin's version: ``kotlin("jvm") version "2.0.21"``,
# ``id("org.jetbrains.kotlin.android") version "1.9.0"``
_GRADLE_KOTLIN = re.compile(
    r"""(?:kotlin\s*\(\s*["'][\w.-]+["']\s*\)|id\s*\(?\s*["']org\.jetbrains\.kotlin\.[\w.-]+["']\s*\)?)"""
    r"""\s*version\s*\(?\s*["']([\w.-]+)["']"""
)
_GRADLE_JAVA = re.compile(
    r"(?:JavaVersion\.VERSION_|JavaLanguageVersion\.of\(|(?:source|target)Compatibility\s*=\s*['\"]?|release\s*=\s*)"
    r"(\d+)"
)


def _gradle(text: str) -> dict[str, Any]:
    artifacts = [m.group(2) for m in _GRADLE_COORDINATE.finditer(text)]
    plugins = ["spring-boot-starter" if p == "org.springframework.boot" else p for p in _GRADLE_PLUGIN.findall(text)]
    document: dict[str, Any] = {"dependencies": artifacts + plugins}
    java = _GRADLE_JAVA.search(text)
    if java:
        document["java"] = java.group(1)
    kotlin = _GRADLE_KOTLIN.search(text)
    if kotlin:
        document["kotlin"] = kotlin.group(1)
    return document


def _lines(text: str) -> dict[str, Any]:
    return {"lines": text}


def _presence(_text: str) -> dict[str, Any]:
    return {}


READERS: dict[str, Callable[[str], dict[str, Any]]] = {
    "toml": _toml,
    "json": _json,
    "ini": _ini,
    "gomod": _gomod,
    "pom": _pom,
    "gradle": _gradle,
    "lines": _lines,
    "presence": _presence,
}
