"""Docstrings: the first string of a body (Python), or the comment block above a
definition and at the top of a file, without comment punctuation, tool directives,
licence notices or type declarations stacked above the doc."""

from __future__ import annotations

import re
from collections.abc import Iterable

from recalld.parsers.debt import clean_comment_lines, dedented, pod_lines, without_leading_notes
from recalld.parsers.doc_attributes import doc_attribute_lines
from recalld.parsers.doc_blocks import (
    DECLARES_TYPE,
    after_doc_block,
    doc_block,
    doc_block_above_notes,
    doc_block_apart,
    marker_under_doc,
    read_as_doc,
    shown_by_rdoc,
    without_rdoc_marks,
)
from recalld.parsers.doc_nodes import (
    BETWEEN_DOC_AND_DEF,
    COMMENT_TYPES,
    doc_target,
    inner_doc,
    is_inner_doc,
    is_outer_doc,
    is_trailing,
    outer_doc,
    past_outer_attributes,
)
from recalld.parsers.macros import calls_alone
from recalld.parsers.mode_lines import is_mode_line
from recalld.parsers.preambles import is_preamble
from recalld.parsers.python_strings import body_string, string_statement
from recalld.parsers.registry import LanguageSpec
from recalld.parsers.treesitter import Node, node_text, unwrapped
from recalld.parsers.unicode_escapes import decode_unicode_escapes
from recalld.parsers.value_docs import documents_a_value

POD = "pod"
POD_SECTION = "=head1"
POD_NAME = "=head1 NAME\n"  # its paragraph names the file's package and what it is
POD_GAP = 1  # blank lines between a POD's ``=cut`` and the sub it documents, as POD writes it
PHP_OPENER = "php_tag"
RDOC = "rdoc"  # ``LanguageSpec.doc_markup`` of docs as RDoc reads them
# Comment lines that speak to a tool rather than a reader: coverage, linters, formatters, the
# TypeScript checker and its language service's plugins (effect's ``@effect-diagnostics``), Go's
# build constraints (``+build``; its directives: ``_UNSPACED_DIRECTIVE``), ShellCheck, PHP_CodeSniffer
# (``// phpcs:ignore PSR2.Methods.MethodDeclaration.Underscore``) and PHPStan,
# an editor (its folds: ``#region``; its file variables: ``parsers.mode_lines``); an interpreter
# line (``#!/usr/bin/env bash``: ``!/usr/bin/env bash``); Ruby's magic comments, whose names it
# reads in any case and with ``-`` for ``_`` (``# frozen-string-literal: true``).
_DIRECTIVE = re.compile(
    r"(?:istanbul|c8) ignore\b|eslint-(?:disable|enable|env)\b|prettier-ignore\b|@ts-(?:ignore|expect-error|nocheck)\b"
    r"|\+build\b|nolint\b|lint:(?:file-)?ignore\b|tslint:(?:disable|enable)|biome-ignore\b|@effect-diagnostics\b"
    r"|#(?:end)?region\b|</?editor-fold\b"
    r"|(?i:frozen[_-]string[_-]literal|shareable[_-]constant[_-]value|warn[_-]indent):"
    r"|(?:en)?coding: *[\w.-]+ *$|typed: *(?:ignore|false|true|strict|strong)\b"
    r"|rubocop:(?:disable|enable|todo)\b|shellcheck +(?:disable|enable|source|shell|external-sources)="
    r"|clang-format (?:off|on)\b"
    r"|@?phpcs:(?:ignore|disable|enable|ignoreFile)\b|@codingStandards(?:Ignore|Change)\w*|@phpstan-ignore(?:-next)?(?:-line)?\b"
    r"|(?:vim?|ex): *(?:set? +)?(?:ft|filetype|syntax|ts|sw|sts|et|noet|tabstop|shiftwidth|expandtab)\b"
    r"|![ \t]*/[\w./-]+(?:[ \t]+[\w./=-]+)*[ \t]*$"
)
# A line of one mark repeated that frames a comment block (``////////``, ``# ======``),
# or such marks around a section's title (zod's ``//////////   ZodNumber   //////////``):
# no part of the doc above or below it. A code fence (``\`\`\```, ``~~~``) is the doc's.
# LLVM's ``//===-----===//`` mixes its marks. A title between slashes keeps those its
# comment's mark left (MediaWiki's ``///// Methods used during testing /////…``: ``//
# Methods …``).
# A line comment that speaks to a tool as Go's compilers read one, no space after ``//`` (go/ast's
# ``isDirective``): ``//go:noinline``, gccgo's ``//extern gettimeofday``, cgo's ``//export Add``,
# ``//line a.go:10``. ``// go:notinheap types (which pollDesc is) must be stored`` is doc text.
_UNSPACED_DIRECTIVE = re.compile(r"//(?:line |extern |export |[a-z0-9]+:[a-z0-9])")
_RULE = re.compile(
    r"([/*#=+_-])\1{2,}|([/#=+_-])\2{2,}[^\n]*?\2{3,}|/+ [^\n]*?/{3,}|[/*=-]*[=-]{3,}[/*=-]*"
)  # not ``*** WARNING ***``
BANNER_TITLE = 2  # lines a banner's title may take between its rules
_CAPITALS_TITLE = re.compile(r"[A-Z][A-Z0-9]*(?:[ &/-][A-Z0-9]+){0,2}")  # ``TYPES``, ``PUBLIC API``
_WORD_TITLE = re.compile(r"[a-z]+")  # ``// actions``, ``// generated``: a word alone in a plain comment set apart
# The line an IDE's file template writes (Xcode's, Android Studio's): ``Created by … on 20.01.26.``
# C#'s XML doc tags (``xml_doc_text``): a reference, a parameter's, the returns', any other.
_XML_REFERENCE = re.compile(r'<(?:see|seealso|paramref|typeparamref)\s+(?:cref|name|langword|href)="([^"]*)"\s*/>')
_XML_PARAMETER = re.compile(r'<(?:param|typeparam)\s+name="([^"]*)"\s*>')
_XML_RETURNS = re.compile(r"<returns>")
_XML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")



def module_docstring(spec: LanguageSpec, root: Node, data: bytes, definitions: Iterable[Node] = ()) -> str:
    """A file's own doc: its first string (Python) or its header comment. ``definitions``:
    the file's, read (once) only where a header comment stands right above a node."""
    if spec.docstrings == "strings":
        return body_string(root, data)
    first = root.named_children[0] if root.named_child_count else None
    if first is not None and first.type == PHP_OPENER:  # ``<?php``, then the file's header
        first = first.next_named_sibling
    doc = ""
    if first is not None:
        header = _file_header(
            first, data, spec.inner_docs, definitions, banners=spec.banner_docs, rdoc=spec.doc_markup == RDOC
        )
        doc = without_leading_notes(header)
    if spec.unicode_escapes:
        doc = decode_unicode_escapes(doc)
    return doc or (_pod_name(root, data) if spec.packages else "")


def _pod_name(root: Node, data: bytes) -> str:
    """A Perl file's POD ``NAME`` section, wherever it stands (after ``package Git;``, after
    ``__END__``): ``Git - Perl interface to the Git version control system``."""
    for node in root.named_children:
        if node.type == POD:
            _before, found, after = node_text(data, node).partition(POD_NAME)
            if found:
                section = re.split(r"(?m)^=", after, maxsplit=1)[0]
                return "\n".join(line for line in pod_lines(section.strip()) if line)
    return ""


def docstring_of(spec: LanguageSpec, node: Node, data: bytes, name: str = "") -> str:
    """A definition's doc: the first string of its body (Python; of a definition without
    one, ``type Vector = list[float]``, the string right after it, as PEP 257 documents an
    attribute) or the comments above it, but the debt notes they open with (a doc that
    opens with the definition's ``name`` is its doc: Go's ``// TODO returns a non-nil,
    empty Trace`` above ``func TODO()``)."""
    if spec.docstrings == "strings":
        body = unwrapped(node).child_by_field_name("body")
        if body is None:
            return string_statement(node.next_named_sibling, data)
        return body_string(body, data)
    above = _leading_comments(
        doc_target(node), data, spec.inner_docs, macros=spec.macros, banners=spec.banner_docs,
        right_above=spec.docs_over_notes, rdoc=spec.doc_markup == RDOC,
    )
    doc = without_leading_notes(above, name)
    if spec.unicode_escapes:
        doc = decode_unicode_escapes(doc)
    return xml_doc_text(doc) if spec.doc_markup == "xml" and "<" in doc else doc


def xml_doc_text(doc: str) -> str:
    """A C# XML doc comment as text: ``<summary>``'s and ``<remarks>``' contents as they
    read, a parameter's ``<param name="x">The amount.</param>`` as ``x: The amount.``, the
    returns' as ``Returns: …``, a reference (``<see cref="Total"/>``, ``<paramref
    name="x"/>``) as its name, other tags left out."""
    text = _XML_REFERENCE.sub(lambda m: m.group(1).split(":", 1)[-1], doc)
    text = _XML_PARAMETER.sub(r"\n\1: ", text)
    text = _XML_RETURNS.sub("\nReturns: ", text)
    text = _XML_TAG.sub("", text)
    return "\n".join(line for line in (raw.strip() for raw in text.splitlines()) if line)


def doc_outside(spec: LanguageSpec, node: Node) -> bool:
    """Whether a definition's doc lies outside its own text (comments above it, a string
    after it), so that its content hash must count it."""
    return spec.docstrings != "strings" or unwrapped(node).child_by_field_name("body") is None


def _leading_comments(
    node: Node, data: bytes, inner_docs: bool, *, macros: bool = False, banners: bool = False,
    right_above: bool = False, rdoc: bool = False,
) -> str:
    """The comment block right above ``node``; in a language whose ``//!`` documents what
    it is in (``inner_docs``: Rust's), its ``///`` lines among its attributes where it has
    any (``doc_nodes.outer_doc``), else up to such a comment. C's and C++'s Doxygen write
    ``//!`` and ``/*!`` for what follows (Qt's ``/*! \\class …``). In C and C++ (``macros``),
    the calls of attribute macros between the two (``PYBIND11_DEPRECATED("…")``, which
    ``parsers.macros`` blanked for the grammar) part them no more than an attribute does.
    ``banners``: a doc block of stars above notes is a doc; ``right_above``: one above notes right
    above the definition is its doc (``doc_blocks.doc_block_above_notes``); ``rdoc``: RDoc's
    ``##`` lines are a doc block (``doc_blocks.doc_block_apart``), and what its ``#--`` hides no
    part of the doc (``doc_blocks.shown_by_rdoc``)."""
    outer = _clean_comments(outer_doc(node, data), data, whole_margin=True) if inner_docs else ""
    if outer:  # not rayon's ``/// ////////`` rule alone above ``// like std::vec::Drain``
        return outer
    comments: list[Node] = []
    first, sibling = node, node.prev_named_sibling
    while sibling is not None and (
        sibling.type in BETWEEN_DOC_AND_DEF or _after_attribute(sibling, data) or marker_under_doc(sibling, data)
    ):
        first, sibling = sibling, sibling.prev_named_sibling
    boundary = first.start_point[0]
    if macros and sibling is not None and sibling.type in COMMENT_TYPES and sibling.end_point[0] < boundary - 1:
        if calls_alone(data[sibling.end_byte : first.start_byte].split(b"\n")[1:-1]):
            boundary = sibling.end_point[0] + 1
    if boundary == first.start_point[0] and doc_block_apart(
        sibling, data, first, banners=banners, doubled=rdoc
    ):  # a blank line
        boundary = sibling.end_point[0] + 1
    elif boundary == first.start_point[0] and (
        noted := doc_block_above_notes(sibling, data, first, banners=banners, right_above=right_above)
    ) is not None:
        sibling, boundary = noted, noted.end_point[0] + 1
    while sibling is not None and sibling.type in COMMENT_TYPES and sibling.end_point[0] >= boundary - 1 - (
        POD_GAP if sibling.type == POD else 0
    ):
        if sibling.end_point[0] == sibling.start_point[0] and is_trailing(sibling, data):
            if not after_doc_block(sibling, data):
                break
            boundary, sibling = sibling.start_point[0], sibling.prev_named_sibling  # ``*/ // note``
            continue
        text = node_text(data, sibling)
        if sibling.type == POD and text.startswith(POD_SECTION):
            break  # a module's sections (``=head1 NAME``, ``=head1 METHODS``), not a sub's doc
        if (inner_docs and is_inner_doc(text)) or (
            comments and (DECLARES_TYPE.search(text) or doc_block(node_text(data, comments[0])))
        ):  # an inner doc; a JSDoc block that declares a type of its own; what is above a doc
            break  # block (``/** … */``): a licence, a fold's mark, javac's ``// where``
        if comments and read_as_doc(text, banners=banners):  # the comments under a doc block are notes, as
            comments = []  # javac reads ``/** Adds. */ // REMIND: deprecate?``: 223 of the JDK's ended its doc
        comments.insert(0, sibling)
        boundary = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
        while _parting(sibling, boundary):  # a doc an attribute parts: clap's ``#[cfg_attr(…, doc = "```")]``
            boundary, sibling = sibling.start_point[0], sibling.prev_named_sibling
    lines = _comment_lines(comments, data, whole_margin=inner_docs, rdoc=rdoc)
    return "" if _section_title(lines, plain=_plain_apart(comments, data)) else _doc_text(lines)


def _parting(node: Node | None, boundary: int) -> bool:
    """An attribute right above the line ``boundary`` with a comment right above it."""
    if node is None or node.type not in BETWEEN_DOC_AND_DEF or node.end_point[0] < boundary - 1:
        return False
    above = node.prev_named_sibling
    return above is not None and above.type in COMMENT_TYPES and above.end_point[0] >= node.start_point[0] - 1


def _section_title(cleaned: list[str], *, plain: bool) -> bool:
    """A comment block that titles the section below it rather than documenting what
    follows: a title closed by a rule (``// Preact helpers`` over ``// -----``, with no
    rule above it: a framed doc has one), or a word or three in capitals alone (``//
    TYPES``, ``// HELPERS``), which react-query and Preact write between their parts, or,
    in a ``plain`` comment set apart (``_plain_apart``), one lowercase word alone (the ``//
    actions`` and ``// generated`` that wikipeg's parsers, Parsoid's grammar, write above
    their first action and rule; npm's ``// generic`` above the methods for any provider).
    One right under the member before it notes the member below (npm's ``// sibling``
    above the ``'~'`` combinator)."""
    lines = [line.strip() for line in cleaned if line.strip()]
    if not lines:
        return False
    if _RULE.fullmatch(lines[-1]):
        titled = [line for line in lines if not _RULE.fullmatch(line)]
        return not _RULE.fullmatch(lines[0]) and 0 < len(titled) <= BANNER_TITLE
    title = _CAPITALS_TITLE.fullmatch(lines[0]) or (plain and _WORD_TITLE.fullmatch(lines[0]))
    return len(lines) == 1 and bool(title)


def _plain_apart(comments: list[Node], data: bytes) -> bool:
    """Whether no comment of ``comments`` is a doc comment (``/** … */``, ``///``, ``//!``,
    ``/*!``), which documents what it stands by whatever it says, and a blank line (or the
    file's start) stands above the first, as above a section's title."""
    if not comments or any(is_outer_doc(c, data) or is_inner_doc(node_text(data, c)) for c in comments):
        return False
    above_end = data.rfind(b"\n", 0, comments[0].start_byte)
    return above_end < 0 or not data[data.rfind(b"\n", 0, above_end) + 1 : above_end].strip()


def _after_attribute(comment: Node, data: bytes) -> bool:
    """A comment on an attribute's line, after it (Rust's ``#[inline] // fast path``): no
    part of the doc above the attribute, which it hid."""
    before = comment.prev_named_sibling
    return (
        comment.type in COMMENT_TYPES and before is not None and before.type in BETWEEN_DOC_AND_DEF
        and before.end_point[0] == comment.start_point[0] and is_trailing(comment, data)
    )  # fmt: skip


def _file_header(
    first: Node, data: bytes, inner_docs: bool, definitions: Iterable[Node], *, banners: bool, rdoc: bool
) -> str:
    """The comment block a file starts with, unless it documents the definition below it
    (one of ``definitions``, or what wraps it: ``doc_target``); a licence notice or directives alone
    are passed over for the block after them (a Go package comment). Right above what is
    no definition (an import, an include, a package clause, a statement), it is the file's:
    nobody else's doc. In a language whose ``//!`` documents what it is in, such comments
    among those and the inner attributes it opens with are its doc (``doc_nodes.inner_doc``).
    ``banners``: a banner of stars a blank line parts from a definition documents it, and
    ``rdoc``: RDoc's ``##`` lines (``doc_blocks.doc_block_apart``)."""
    inner = inner_doc(first, data) if inner_docs else []
    if inner:
        return _clean_comments(inner, data, whole_margin=True)
    current: Node | None = first
    while current is not None and current.type in COMMENT_TYPES:
        comments: list[Node] = []
        while current is not None and current.type in COMMENT_TYPES:
            if comments and current.start_point[0] > comments[-1].end_point[0] + 1:
                break
            comments.append(current)
            current = current.next_named_sibling
        if inner_docs and current is not None and any(is_outer_doc(comment, data) for comment in comments):
            definitions = tuple(definitions)  # asked again below
            if _documents(_past_comments(current), definitions):
                return ""  # the doc of the definition below, whatever blank lines part them (``outer_doc``)
        cleaned = _comment_lines(comments, data, whole_margin=inner_docs, rdoc=rdoc)
        text = _doc_text(cleaned)
        titled = _section_title(cleaned, plain=_plain_apart(comments, data))
        if is_preamble(text) or titled or DECLARES_TYPE.search(text):  # a JSDoc type's own: nobody's doc
            continue
        attached = current is not None and (
            current.start_point[0] <= comments[-1].end_point[0] + 1
            or doc_block_apart(comments[-1], data, current, banners=banners, doubled=rdoc)
        )
        below = None
        if attached and current is not None:
            below = past_outer_attributes(current) if inner_docs else _past_attributes(current, data)
        if below is not None and (_documents(below, definitions) or documents_a_value(comments[-1], below, data)):
            return ""
        return text
    return ""


def _past_attributes(node: Node, data: bytes) -> Node:
    """What the decorators and attributes that start at ``node`` are written for (Rust's
    ``#[derive(…)]`` before ``struct``: a doc above them is the struct's; a comment after
    one on its line, ``#[inline] // fast path``, passed over), else ``node``."""
    current = node
    while current.next_named_sibling is not None and (
        current.type in BETWEEN_DOC_AND_DEF or _after_attribute(current, data)
        or (current.type in COMMENT_TYPES and _parting(current.prev_named_sibling, current.start_point[0]))
    ):  # and the rest of a doc an attribute parts (``_parting``)
        current = current.next_named_sibling
    return current


def _past_comments(node: Node) -> Node:
    """The first node from ``node`` on that is no comment nor attribute (else the last)."""
    current = node
    while current.next_named_sibling is not None and (
        current.type in COMMENT_TYPES or current.type in BETWEEN_DOC_AND_DEF
    ):
        current = current.next_named_sibling
    return current


def _documents(node: Node, definitions: Iterable[Node]) -> bool:
    """Whether the comments right above ``node`` are the doc of one of ``definitions``:
    those within it are asked, the rest cannot be."""
    return any(
        doc_target(d).id == node.id for d in definitions if node.start_byte <= d.start_byte < node.end_byte
    )


def _clean_comments(comments: list[Node], data: bytes, *, whole_margin: bool = False) -> str:
    """The comments' text without their punctuation and the tools' directives in them."""
    return _doc_text(_comment_lines(comments, data, whole_margin=whole_margin))


def _comment_lines(comments: list[Node], data: bytes, *, whole_margin: bool = False, rdoc: bool = False) -> list[str]:
    """The comments' lines without their punctuation (``debt.clean_comment_lines``), but a
    directive's (``_UNSPACED_DIRECTIVE``) and an editor's file variables on the file's first
    lines (``mode_lines``), and a Rust doc attribute's among them as its ``///`` lines would
    read (``doc_attributes.doc_attribute_lines``); ``whole_margin``: a block's `` * `` margin
    as rustdoc takes it off, where all its lines have one; ``rdoc``: what RDoc's ``#--`` hides
    left out, but where that leaves no doc (``doc_blocks.shown_by_rdoc``)."""
    if rdoc:
        shown = _comment_lines(shown_by_rdoc(comments, data), data, whole_margin=whole_margin)
        if _doc_text(shown):
            return shown
        comments = without_rdoc_marks(comments, data)
    lines: list[str] = []
    for comment in comments:
        attribute = doc_attribute_lines(comment, data)
        text = node_text(data, comment) if attribute is None else ""
        if attribute is not None:
            lines.extend(attribute)
        elif not _UNSPACED_DIRECTIVE.match(text):
            cleaned = clean_comment_lines(text, indented=True, whole_margin=whole_margin)
            row = comment.start_point.row
            lines.extend(line for i, line in enumerate(cleaned) if not is_mode_line(line, row + i))
    return dedented(lines)


def _doc_text(cleaned: list[str]) -> str:
    """The doc the comments' ``cleaned`` lines hold: the tools' directives left out, and the
    rules and a section's banner above it."""
    lines = [line for line in cleaned if not _DIRECTIVE.match(line.lstrip())]
    while lines and (not lines[-1].strip() or _RULE.fullmatch(lines[-1].strip())):
        lines.pop()
    start = _after_rules(lines, 0)
    opening = next((line for line in reversed(lines[:start]) if line), None)
    if opening is not None:  # a section's banner above the doc: a title between two rules alike
        within = range(start, min(start + BANNER_TITLE + 1, len(lines)))
        closing = next((i for i in within if lines[i] == opening), None)
        if closing is not None and closing + 1 < len(lines):
            start = _after_rules(lines, closing)
    return "\n".join(lines[start:]).strip()


def _after_rules(lines: list[str], start: int) -> int:
    """The first line from ``start`` that is neither blank nor a rule."""
    while start < len(lines) and (not lines[start].strip() or _RULE.fullmatch(lines[start].strip())):
        start += 1
    return start
