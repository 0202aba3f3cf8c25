"""Which tooling files say what about a project's preferences: plain data.

A ``ToolingFile`` names the files (basename globs), the format they are read as, the
rules that turn keys into preferences and the keys that declare dependencies (looked
up in ``DEPENDENCIES``). A key is a path of table names; ``*`` matches any one name.
"""

from __future__ import annotations

from dataclasses import dataclass

Key = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str  # test_runner | linter | formatter | framework | build_system | language_version
    name: str  # the tool; "" takes it from the value through ``values``
    key: Key = ()  # () : the file's presence is the evidence
    settings: tuple[str, ...] = ()  # keys of the table at ``key`` (or of ``settings_at``) worth quoting
    values: tuple[tuple[str, str], ...] = ()  # value prefix -> tool name
    contains: str = ""  # the value must contain this text
    settings_at: Key = ()


@dataclass(frozen=True, slots=True)
class ToolingFile:
    globs: tuple[str, ...]
    format: str  # toml | json | ini | gomod | pom | gradle | lines | presence
    rules: tuple[Rule, ...] = ()
    dependencies: tuple[Key, ...] = ()


TEST, LINT, FORMAT, FRAMEWORK, BUILD, VERSION = (
    "test_runner", "linter", "formatter", "framework", "build_system", "language_version",
)  # fmt: skip
PREFERENCE_KINDS = (TEST, LINT, FORMAT, FRAMEWORK, BUILD, VERSION)
PY_BACKENDS = (
    ("setuptools", "setuptools"), ("hatchling", "hatch"), ("poetry", "poetry"), ("flit", "flit"),
    ("maturin", "maturin"), ("pdm", "pdm"), ("scikit_build", "scikit-build"), ("mesonpy", "meson-python"),
)  # fmt: skip
NODE_MANAGERS = (("npm", "npm"), ("yarn", "yarn"), ("pnpm", "pnpm"), ("bun", "bun"))
RUFF_SETTINGS = ("line-length", "target-version", "select", "lint.select", "ignore", "lint.ignore")
MYPY_SETTINGS = ("strict", "disallow_untyped_defs", "python_version", "ignore_missing_imports")
PYTEST_SETTINGS = ("testpaths", "addopts", "minversion")

TOOLING_FILES: tuple[ToolingFile, ...] = (
    ToolingFile(("pyproject.toml",), "toml", (
        Rule(TEST, "pytest", ("tool", "pytest", "ini_options"), PYTEST_SETTINGS),
        Rule(TEST, "tox", ("tool", "tox")),
        Rule(LINT, "ruff", ("tool", "ruff"), RUFF_SETTINGS),
        Rule(FORMAT, "ruff format", ("tool", "ruff", "format"), ("quote-style", "indent-style")),
        Rule(FORMAT, "black", ("tool", "black"), ("line-length", "target-version")),
        Rule(FORMAT, "isort", ("tool", "isort"), ("profile", "line_length")),
        Rule(LINT, "mypy", ("tool", "mypy"), MYPY_SETTINGS),
        Rule(LINT, "pylint", ("tool", "pylint")),
        Rule(BUILD, "", ("build-system", "build-backend"), values=PY_BACKENDS),
        Rule(BUILD, "poetry", ("tool", "poetry")),
        Rule(VERSION, "python", ("project", "requires-python")),
        Rule(VERSION, "python", ("tool", "poetry", "dependencies", "python")),
    ), dependencies=(
        ("project", "dependencies"), ("project", "optional-dependencies", "*"), ("dependency-groups", "*"),
        ("tool", "poetry", "dependencies"), ("tool", "poetry", "group", "*", "dependencies"),
    )),
    ToolingFile(("setup.cfg",), "ini", (
        Rule(TEST, "pytest", ("tool:pytest",), PYTEST_SETTINGS),
        Rule(LINT, "flake8", ("flake8",), ("max-line-length", "select", "extend-ignore")),
        Rule(LINT, "mypy", ("mypy",), MYPY_SETTINGS),
        Rule(BUILD, "setuptools", ("metadata",)),
        Rule(BUILD, "setuptools", ("options",)),
        Rule(VERSION, "python", ("options", "python_requires")),
    ), dependencies=(("options", "install_requires"),)),
    ToolingFile(("pytest.ini",), "ini", (Rule(TEST, "pytest", settings=PYTEST_SETTINGS, settings_at=("pytest",)),)),
    ToolingFile(("tox.ini",), "ini", (
        Rule(TEST, "tox"),
        Rule(TEST, "pytest", ("pytest",), PYTEST_SETTINGS),
        Rule(TEST, "pytest", ("testenv", "commands"), contains="pytest"),
        Rule(TEST, "unittest", ("testenv", "commands"), contains="unittest"),
        Rule(TEST, "nose", ("testenv", "commands"), contains="nose"),
        Rule(LINT, "flake8", ("flake8",), ("max-line-length", "select", "extend-ignore")),
    )),
    ToolingFile((".flake8",), "ini",
                (Rule(LINT, "flake8", settings=("max-line-length", "select"), settings_at=("flake8",)),)),
    ToolingFile(("mypy.ini", ".mypy.ini"), "ini", (Rule(LINT, "mypy", settings=MYPY_SETTINGS, settings_at=("mypy",)),)),
    ToolingFile(("ruff.toml", ".ruff.toml"), "toml", (Rule(LINT, "ruff", settings=RUFF_SETTINGS),)),
    ToolingFile(("requirements*.txt",), "lines", dependencies=(("lines",),)),
    ToolingFile(("package.json",), "json", (
        Rule(BUILD, "", ("packageManager",), values=NODE_MANAGERS),
        Rule(VERSION, "node", ("engines", "node")),
        Rule(TEST, "jest", ("jest",)),
        Rule(TEST, "jest", ("scripts", "test"), contains="jest"),
        Rule(TEST, "vitest", ("scripts", "test"), contains="vitest"),
        Rule(TEST, "mocha", ("scripts", "test"), contains="mocha"),
        Rule(TEST, "node:test", ("scripts", "test"), contains="node --test"),
        Rule(LINT, "eslint", ("eslintConfig",)),
        Rule(FORMAT, "prettier", ("prettier",)),
    ), dependencies=(("dependencies",), ("devDependencies",), ("peerDependencies",))),
    ToolingFile(("package-lock.json",), "presence", (Rule(BUILD, "npm"),)),
    ToolingFile(("yarn.lock",), "presence", (Rule(BUILD, "yarn"),)),
    ToolingFile(("pnpm-lock.yaml", "pnpm-workspace.yaml"), "presence", (Rule(BUILD, "pnpm"),)),
    ToolingFile((".eslintrc", ".eslintrc.json", ".eslintrc.yml", ".eslintrc.yaml"), "presence",
                (Rule(LINT, "eslint"),)),
    ToolingFile((".prettierrc", ".prettierrc.json", ".prettierrc.yml", ".prettierrc.yaml", ".prettierrc.toml"),
                "presence", (Rule(FORMAT, "prettier"),)),  # fmt: skip
    ToolingFile(("go.mod",), "gomod", (
        Rule(BUILD, "go modules"),
        Rule(TEST, "go test"),
        Rule(FORMAT, "gofmt"),
        Rule(VERSION, "go", ("go",)),
    ), dependencies=(("require",),)),
    ToolingFile((".golangci.yml", ".golangci.yaml", ".golangci.toml"), "presence", (Rule(LINT, "golangci-lint"),)),
    ToolingFile(("Cargo.toml",), "toml", (
        Rule(BUILD, "cargo"),
        Rule(TEST, "cargo test"),
        Rule(VERSION, "rust", ("package", "rust-version")),
        Rule(VERSION, "rust edition", ("package", "edition")),
        Rule(LINT, "clippy", ("lints", "clippy")),
    ), dependencies=(("dependencies",), ("dev-dependencies",), ("workspace", "dependencies"))),
    ToolingFile(("rustfmt.toml", ".rustfmt.toml"), "toml",
                (Rule(FORMAT, "rustfmt", settings=("max_width", "edition")),)),
    ToolingFile(("clippy.toml", ".clippy.toml"), "presence", (Rule(LINT, "clippy"),)),
    ToolingFile(("pom.xml",), "pom", (
        Rule(BUILD, "maven"),
        Rule(VERSION, "java", ("properties", "maven.compiler.release")),
        Rule(VERSION, "java", ("properties", "java.version")),
        Rule(VERSION, "java", ("properties", "maven.compiler.source")),
    ), dependencies=(("dependencies",),)),
    ToolingFile((".clang-format", "_clang-format"), "presence", (Rule(FORMAT, "clang-format"),)),
    ToolingFile((".clang-tidy",), "presence", (Rule(LINT, "clang-tidy"),)),
    ToolingFile(("*.csproj", "*.sln"), "presence", (Rule(BUILD, "dotnet"),)),
    ToolingFile(("Gemfile",), "presence", (Rule(BUILD, "bundler"),)),
    ToolingFile(("composer.json",), "json", (
        Rule(BUILD, "composer"),
        Rule(VERSION, "php", ("require", "php")),
    ), dependencies=(("require",), ("require-dev",))),
    ToolingFile(("phpunit.xml", "phpunit.xml.dist"), "presence", (Rule(TEST, "PHPUnit"),)),
    ToolingFile(("phpstan.neon", "phpstan.neon.dist"), "presence", (Rule(LINT, "PHPStan"),)),
    ToolingFile((".rubocop.yml",), "presence", (Rule(LINT, "rubocop"),)),
    ToolingFile((".rspec",), "presence", (Rule(TEST, "rspec"),)),
    ToolingFile(("build.gradle", "build.gradle.kts"), "gradle", (
        Rule(BUILD, "gradle"),
        Rule(VERSION, "java", ("java",)),
        Rule(VERSION, "kotlin", ("kotlin",)),
    ), dependencies=(("dependencies",),)),
    ToolingFile(("detekt.yml", "detekt-config.yml"), "presence", (Rule(LINT, "detekt"),)),
    ToolingFile((".swiftlint.yml",), "presence", (Rule(LINT, "SwiftLint"),)),
    ToolingFile((".swiftformat",), "presence", (Rule(FORMAT, "SwiftFormat"),)),
    ToolingFile((".swift-format",), "presence", (Rule(FORMAT, "swift-format"),)),
    ToolingFile((".shellcheckrc", "shellcheckrc"), "presence", (Rule(LINT, "ShellCheck"),)),
)  # fmt: skip

# Declared dependency (lower case; a trailing "*" matches a prefix) -> (kind, tool).
DEPENDENCIES: dict[str, tuple[str, str]] = {
    "fastapi": (FRAMEWORK, "FastAPI"), "flask": (FRAMEWORK, "Flask"), "django": (FRAMEWORK, "Django"),
    "starlette": (FRAMEWORK, "Starlette"), "aiohttp": (FRAMEWORK, "aiohttp"), "pyramid": (FRAMEWORK, "Pyramid"),
    "pytest": (TEST, "pytest"), "nose": (TEST, "nose"), "nose2": (TEST, "nose"), "tox": (TEST, "tox"),
    "ruff": (LINT, "ruff"), "flake8": (LINT, "flake8"), "mypy": (LINT, "mypy"), "pylint": (LINT, "pylint"),
    "black": (FORMAT, "black"), "isort": (FORMAT, "isort"),
    "react": (FRAMEWORK, "React"), "vue": (FRAMEWORK, "Vue"), "@angular/core": (FRAMEWORK, "Angular"),
    "svelte": (FRAMEWORK, "Svelte"), "next": (FRAMEWORK, "Next.js"), "express": (FRAMEWORK, "Express"),
    "fastify": (FRAMEWORK, "Fastify"), "koa": (FRAMEWORK, "Koa"), "@nestjs/core": (FRAMEWORK, "NestJS"),
    "jest": (TEST, "jest"), "vitest": (TEST, "vitest"), "mocha": (TEST, "mocha"),
    "@playwright/test": (TEST, "playwright"), "eslint": (LINT, "eslint"), "prettier": (FORMAT, "prettier"),
    "github.com/gin-gonic/gin": (FRAMEWORK, "Gin"), "github.com/labstack/echo*": (FRAMEWORK, "Echo"),
    "github.com/gofiber/fiber*": (FRAMEWORK, "Fiber"), "github.com/go-chi/chi*": (FRAMEWORK, "chi"),
    "github.com/gorilla/mux": (FRAMEWORK, "Gorilla mux"), "github.com/stretchr/testify": (TEST, "testify"),
    "actix-web": (FRAMEWORK, "Actix Web"), "axum": (FRAMEWORK, "Axum"), "rocket": (FRAMEWORK, "Rocket"),
    "warp": (FRAMEWORK, "warp"), "tokio": (FRAMEWORK, "Tokio"),
    "spring-boot-starter*": (FRAMEWORK, "Spring Boot"), "spring-webmvc": (FRAMEWORK, "Spring"),
    "spring-context": (FRAMEWORK, "Spring"), "quarkus-*": (FRAMEWORK, "Quarkus"),
    "junit": (TEST, "JUnit"), "junit-jupiter*": (TEST, "JUnit"), "testng": (TEST, "TestNG"),
    "laravel/framework": (FRAMEWORK, "Laravel"), "symfony/framework-bundle": (FRAMEWORK, "Symfony"),
    "phpunit/phpunit": (TEST, "PHPUnit"), "pestphp/pest": (TEST, "Pest"), "phpstan/phpstan": (LINT, "PHPStan"),
    "friendsofphp/php-cs-fixer": (FORMAT, "PHP CS Fixer"),
    "com.android.application": (FRAMEWORK, "Android"), "com.android.library": (FRAMEWORK, "Android"),
    "ktor-server-core*": (FRAMEWORK, "Ktor"), "kotest-runner-junit5*": (TEST, "Kotest"),
    "io.gitlab.arturbosch.detekt": (LINT, "detekt"), "org.jlleitschuh.gradle.ktlint": (LINT, "ktlint"),
}  # fmt: skip

# Root files that name a build system by their presence alone. They are code, not
# tooling data (setup.py stays a Python module), so only the project memory reads this.
BUILD_FILES: dict[str, str] = {
    "setup.py": "setuptools", "Makefile": "make", "CMakeLists.txt": "cmake", "meson.build": "meson",
    "WORKSPACE": "bazel", "MODULE.bazel": "bazel", "build.sbt": "sbt", "mix.exs": "mix",
    "Package.swift": "swift package manager", "Podfile": "CocoaPods",
}  # fmt: skip

TOOLING_GLOBS: tuple[str, ...] = tuple(glob for tooling in TOOLING_FILES for glob in tooling.globs)
