"""A file's own doc (its module's docstring): the block after its licence notice, or the comment
right above its imports or its first statement."""

from __future__ import annotations

import pytest

from recalld.parsers import parse

LICENCE_HEADERS = {
    "javascript": b"/*\n MIT License http://www.opensource.org/licenses/mit-license.php\n*/\n\n"
    b"/** Renders pages. */\n\nconst a = 1;\n",
    "go": b"// Copyright 2009 The Go Authors. All rights reserved.\n"
    b"// license that can be found in the LICENSE file.\n\n"
    b"// Renders pages.\npackage render\n",
    "java": b"/*\n * Licensed to the Apache Software Foundation (ASF).\n */\n\n"
    b"/** Renders pages. */\npackage render;\n",
    "rust": b"// SPDX-License-Identifier: MIT\n\n// Renders pages.\n\nfn a() {}\n",
    "kotlin": b"/*\n * Copyright (c) Meta Platforms, Inc. and affiliates.\n */\n\n"
    b"/** Renders pages. */\npackage render\n",
    # Xcode's template: the file's name, its project, who created it and when.
    "swift": b"//\n//  Render.swift\n//  Pages\n//\n//  Created by a contributor on 20.01.26.\n//\n\n"
    b"// Renders pages.\n\nimport Foundation\n",
    "typescript": b"/* This Source Code Form is subject to the terms of the Mozilla Public\n * License, v. 2.0. */\n\n"
    b"/** Renders pages. */\n\nexport const a = 1;\n",
}  # fmt: skip


@pytest.mark.parametrize("language", sorted(LICENCE_HEADERS))
def test_a_licence_notice_is_no_module_docstring(language: str):
    """Most files start with their licence; the file's description is the block after it."""
    data = LICENCE_HEADERS[language]
    assert parse(language, data).symbols[0].docstring == "Renders pages."
    assert parse(language, data.split(b"\n\n")[0] + b"\n").symbols[0].docstring == ""  # the notice alone


def test_a_gpl_notice_and_a_public_domain_dedication_are_no_module_docstring():
    """The JDK's java.util.concurrent files: the vendor's notice, then the original
    author's, each a block of its own, before the package."""
    vendor = b"/*\n * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.\n */\n\n"
    author = (b"/*\n * This file is available under and governed by the GNU General Public\n"
              b" * License version 2 only, as published by the Free Software Foundation.\n"
              b" * Written by a team and released to the public domain, as explained at\n"
              b" * http://creativecommons.org/publicdomain/zero/1.0/\n */\n\n")  # fmt: skip
    assert parse("java", vendor + author + b"package render;\n").symbols[0].docstring == ""
    described = vendor + author + b"/** Renders pages. */\npackage render;\n"
    assert parse("java", described).symbols[0].docstring == "Renders pages."


def test_a_description_that_speaks_of_licences_stays_the_docstring():
    data = b"// Checks the licences of a project's dependencies.\n\npackage licences\n"
    assert parse("go", data).symbols[0].docstring == "Checks the licences of a project's dependencies."


@pytest.mark.parametrize(
    ("language", "imports"),
    [("c", b"#include <stdio.h>\n"), ("javascript", b"import fs from 'fs';\n"), ("rust", b"use std::io;\n"),
     ("swift", b"import Foundation\n"), ("csharp", b"using System;\n"),
     ("objc", b"#import <Foundation/Foundation.h>\n")],
)  # fmt: skip
def test_a_comment_right_above_a_files_imports_describes_the_file(language: str, imports: bytes):
    """Git's ``hashmap.c``: ``/* Generic implementation of hash-based key value mappings. */``
    then its ``#include``; the same comment above a definition is the definition's."""
    doc = "Generic implementation of hash-based key value mappings."
    assert parse(language, f"/* {doc} */\n".encode() + imports).symbols[0].docstring == doc
    assert parse(language, b"/* clang-format off */\n" + imports).symbols[0].docstring == ""


@pytest.mark.parametrize(
    ("language", "statement"),
    [("bash", b"set -euo pipefail\n"), ("lua", b"local M = {}\n"), ("javascript", b"'use strict';\n"),
     ("c", b"#ifndef HASHMAP_H\n#define HASHMAP_H\n#endif\n")],
)  # fmt: skip
def test_a_comment_right_above_a_statement_describes_the_file(language: str, statement: bytes):
    """No definition's doc, the comment block a file opens with is the file's, above its
    first statement as above its imports: a script's ``set -e``, Lua's module table, a
    header's include guard."""
    doc = "Window helpers."
    opener = b"--" if language == "lua" else b"#" if language == "bash" else b"//"
    assert parse(language, opener + f" {doc}\n".encode() + statement).symbols[0].docstring == doc
