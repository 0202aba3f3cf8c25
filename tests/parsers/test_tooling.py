"""Preferences from tooling files: each ecosystem's files, malformed input, evidence."""

from __future__ import annotations

import pytest

from recalld.parsers import parse

PYPROJECT = b"""[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "x"
requires-python = ">=3.11"
dependencies = ["FastAPI[all]>=0.110", "pygit2"]

[project.optional-dependencies]
test = ["pytest>=8", "mypy"]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-q"

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "I"]

[tool.black]
line-length = 88

[tool.mypy]
strict = true
"""

CASES = {
    "pyproject.toml": (PYPROJECT, {
        ("test_runner", "pytest"), ("linter", "ruff"), ("formatter", "black"), ("linter", "mypy"),
        ("build_system", "hatch"), ("language_version", "python"), ("framework", "FastAPI"),
    }),
    "setup.cfg": (b"[tool:pytest]\ntestpaths = t\n[flake8]\nmax-line-length = 120\n[options]\n"
                  b"python_requires = >=3.9\ninstall_requires =\n    django>=4\n", {
        ("test_runner", "pytest"), ("linter", "flake8"), ("build_system", "setuptools"),
        ("language_version", "python"), ("framework", "Django"),
    }),
    "tox.ini": (b"[tox]\nenvlist = py312\n[testenv]\ncommands = python -m unittest\n",
                {("test_runner", "tox"), ("test_runner", "unittest")}),
    "requirements-dev.txt": (b"# dev\nflask==3.0\n-r base.txt\nnose2\n", {("framework", "Flask"), ("test_runner", "nose")}),
    "package.json": (b'{"packageManager": "yarn@4.1.0", "engines": {"node": ">=20"}, "scripts": {"test": "jest --ci"},'
                     b' "dependencies": {"react": "^18", "express": "4"}, "devDependencies": {"eslint": "9", "prettier": "3"}}', {
        ("build_system", "yarn"), ("language_version", "node"), ("test_runner", "jest"), ("framework", "React"),
        ("framework", "Express"), ("linter", "eslint"), ("formatter", "prettier"),
    }),
    "pnpm-lock.yaml": (b"lockfileVersion: '9.0'\n", {("build_system", "pnpm")}),
    "go.mod": (b"module example.com/x\n\ngo 1.22\n\nrequire (\n\tgithub.com/labstack/echo/v4 v4.11.0 // web\n)\n", {
        ("build_system", "go modules"), ("test_runner", "go test"), ("formatter", "gofmt"),
        ("language_version", "go"), ("framework", "Echo"),
    }),
    ".golangci.yml": (b"linters:\n  enable: [govet]\n", {("linter", "golangci-lint")}),
    "Cargo.toml": (b'[package]\nname = "x"\nedition = "2021"\nrust-version = "1.75"\n[dependencies]\nactix-web = "4"\n', {
        ("build_system", "cargo"), ("test_runner", "cargo test"), ("language_version", "rust"),
        ("language_version", "rust edition"), ("framework", "Actix Web"),
    }),
    "rustfmt.toml": (b"max_width = 120\n", {("formatter", "rustfmt")}),
    ".clang-format": (b"BasedOnStyle: Google\n", {("formatter", "clang-format")}),
    ".clang-tidy": (b"Checks: 'bugprone-*'\n", {("linter", "clang-tidy")}),
    "Shapes.csproj": (b'<Project Sdk="Microsoft.NET.Sdk"></Project>\n', {("build_system", "dotnet")}),
    "Gemfile": (b'source "https://rubygems.org"\ngem "rails"\n', {("build_system", "bundler")}),
    ".rspec": (b"--require spec_helper\n", {("test_runner", "rspec")}),
    "composer.json": (b'{"require": {"php": "^8.1", "laravel/framework": "^10.0"}, '
                      b'"require-dev": {"phpunit/phpunit": "^10.0"}}', {
        ("build_system", "composer"), ("language_version", "php"), ("framework", "Laravel"), ("test_runner", "PHPUnit"),
    }),
    "pom.xml": (b'<project xmlns="http://maven.apache.org/POM/4.0.0"><properties><java.version>21</java.version></properties>'
                b"<dependencies><dependency><artifactId>spring-boot-starter-web</artifactId></dependency>"
                b"<dependency><artifactId>junit</artifactId></dependency></dependencies></project>", {
        ("build_system", "maven"), ("language_version", "java"), ("framework", "Spring Boot"), ("test_runner", "JUnit"),
    }),
    "build.gradle.kts": (b'java { sourceCompatibility = JavaVersion.VERSION_17 }\n'
                         b'dependencies { testImplementation("org.testng:testng:7.9") }\n', {
        ("build_system", "gradle"), ("language_version", "java"), ("test_runner", "TestNG"),
    }),
    "build.gradle": (b'plugins {\n    id "com.android.application"\n'
                     b'    id "org.jetbrains.kotlin.android" version "1.9.24"\n}\n'
                     b'dependencies { testImplementation "io.kotest:kotest-runner-junit5:5.9.1" }\n', {
        ("build_system", "gradle"), ("language_version", "kotlin"), ("framework", "Android"), ("test_runner", "Kotest"),
    }),
    ".swiftlint.yml": (b"disabled_rules:\n  - line_length\n", {("linter", "SwiftLint")}),
    ".swiftformat": (b"--indent 2\n", {("formatter", "SwiftFormat")}),
    "detekt.yml": (b"style:\n  active: true\n", {("linter", "detekt")}),
    ".shellcheckrc": (b"disable=SC2034\nexternal-sources=true\n", {("linter", "ShellCheck")}),
}  # fmt: skip


@pytest.mark.parametrize("filename", sorted(CASES))
def test_preferences_per_tooling_file(filename: str):
    data, expected = CASES[filename]
    result = parse("tooling", data, path=f"sub/{filename}")
    assert {(e.kind, e.qualname) for e in result.derived} == expected
    assert result.syntax_errors == 0


def test_text_and_evidence_carry_the_key_settings():
    entries = {(e.kind, e.qualname): e for e in parse("tooling", PYPROJECT, path="pyproject.toml").derived}
    pytest_entry = entries[("test_runner", "pytest")]
    assert pytest_entry.source == (
        "Tests run with pytest (pyproject.toml [tool.pytest.ini_options]: testpaths=tests, addopts=-q)"
    )
    ruff = dict(entries[("linter", "ruff")].extra)
    assert ruff["evidence"] == {"file": "pyproject.toml", "key": "tool.ruff", "value": "line-length=100, lint.select=E,F,I"}
    assert entries[("language_version", "python")].source.startswith("Requires python >=3.11")
    assert dict(entries[("framework", "FastAPI")].extra)["evidence"]["value"] == "fastapi"


def test_a_changed_setting_changes_only_that_preference():
    before = {e.qualname: e.content_hash for e in parse("tooling", PYPROJECT, path="pyproject.toml").derived}
    edited = PYPROJECT.replace(b"line-length = 100", b"line-length = 120")
    after = {e.qualname: e.content_hash for e in parse("tooling", edited, path="pyproject.toml").derived}
    assert {q for q in before if before[q] != after[q]} == {"ruff"}


@pytest.mark.parametrize(
    ("filename", "data"),
    [
        ("pyproject.toml", b"[tool.ruff\nline-length = "),
        ("package.json", b'{"dependencies": '),
        ("package.json", b"[1, 2]"),
        ("setup.cfg", b"no section header\n"),
        ("pom.xml", b"<project><unclosed>"),
        ("pyproject.toml", b"\xff\xfe\x00"),
    ],
)
def test_malformed_files_yield_nothing_and_never_raise(filename: str, data: bytes):
    result = parse("tooling", data, path=filename)
    assert result.derived == () and result.syntax_errors == 1


def test_files_that_say_nothing_yield_nothing():
    assert parse("tooling", b'{"name": "x", "version": "1.0.0"}', path="package.json").derived == ()
    assert parse("tooling", b'[project]\nname = "x"\n', path="pyproject.toml").derived == ()


def test_a_changed_command_under_the_same_runner_changes_the_entry():
    """Same text ("Tests run with jest ..."), other evidence: the hash must differ, or
    the stored entry keeps the old command."""
    before = parse("tooling", b'{"scripts": {"test": "jest --ci"}}', path="package.json").derived
    after = parse("tooling", b'{"scripts": {"test": "jest --ci --runInBand"}}', path="package.json").derived
    assert [e.source for e in before] == [e.source for e in after]
    assert before[0].content_hash != after[0].content_hash
