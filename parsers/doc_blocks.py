"""Where a doc block (``/** … */``: Javadoc, JSDoc, Doxygen; RDoc's ``##`` lines) stands to the
definition it documents, as Javadoc's, TypeScript's and RDoc's readers take it: parted from it by
blank lines, above comments that are no doc, with a note after its end on its line."""

from __future__ import annotations

import re
from typing import TypeGuard

from recalld.parsers.doc_nodes import COMMENT_TYPES, is_trailing
from recalld.parsers.treesitter import Node, node_text
from recalld.parsers.value_docs import FILE_TAGS

DECLARES_TYPE = re.compile(r"@(?:typedef|callback|import)\b")  # a JSDoc block of a type of its own
_MARKER = re.compile(r"/\*(?!\*)\s*[A-Za-z][\w-]*\s*\*/")  # ``/*non-public*/``, ``/* package-private */``
# A line comment of the comment's mark doubled, alone: it opens a doc block of ``#`` lines, as RDoc
# writes each doc (``##`` then ``# Creates a new …``) and Psych its (``###``).
_DOUBLED_MARK = re.compile(r"#{2,3}[ \t]*")
# RDoc's directives that open a block documenting a subject of its own, no code's: a member
# (``# :method: some_method!``, ``# :singleton-method: instance``, ``# :attr_reader: name``), a section.
_OWN_SUBJECT = re.compile(r"#[ \t]+:(?:(?:singleton-)?method|attr(?:_reader|_writer|_accessor)?|section):", re.I)
# The lines that hide a part of a doc from RDoc's reader, and that end it (Ruby's ``Comment#remove_private``).
_HIDE, _SHOW = "#--", "#++"


def doc_block_apart(
    comment: Node | None, data: bytes, first: Node, *, banners: bool = False, doubled: bool = False
) -> bool:
    """A doc block (``/** … */``: JSDoc, Javadoc, Doxygen) parted from the definition below
    it (``first``: its attributes' start) by blank lines alone, as Express and Commander
    write every method's: TypeScript's and Javadoc's readers take it as that definition's
    doc. One that says it is the file's (``@file``, ``@module``, a licence) or declares a type
    of its own (``@typedef``, ``@callback``: ``DECLARES_TYPE``) is not, nor a
    banner of stars above a section (Composer's ``/*****`` box around ``Wrappers around the
    aliased package``, which PHP's lexer reads as no doc comment) but where ``banners``
    (``read_as_doc``). Where ``doubled`` (Ruby's), the ``#`` lines that end at ``comment``
    are such a block where one of them is the mark doubled alone (``_doubled_mark_block``)."""
    if not _apart(comment, first):
        return False
    text = node_text(data, comment)
    if not (doubled and _doubled_mark_block(comment, data)) and (
        not read_as_doc(text, banners=banners) or FILE_TAGS.search(text) or DECLARES_TYPE.search(text)
    ):
        return False
    return not data[comment.end_byte : first.start_byte].strip()


def _doubled_mark_block(comment: Node, data: bytes) -> bool:
    """Whether the line comments that end at ``comment``, each on a line of its own right under
    the one before, are a doc block as RDoc writes one: one of them is the mark doubled
    alone (``##``, under the file's ``# frozen_string_literal: true``), and the line under it
    names no subject of its own, whose doc the block is (``# :method: to_ary``, ``#
    :attr_accessor: color``, ``# :section: Visitor``: RDoc's directives, not its prose's
    mentions of them). RDoc's reader takes such a block for the doc of what is below it
    whatever blank lines part them, and its guide writes a blank line between them."""
    lines: list[str] = []
    current: Node | None = comment
    row = comment.end_point[0] + 1  # the row under the lines read so far
    while (
        current is not None and current.type in COMMENT_TYPES and current.end_point[0] == row - 1
        and not is_trailing(current, data)
    ):  # fmt: skip
        lines.append(node_text(data, current).strip())
        row, current = current.start_point[0], current.prev_named_sibling
    lines.reverse()
    opened = next((i for i, line in enumerate(lines) if _DOUBLED_MARK.fullmatch(line)), None)
    return opened is not None and not _OWN_SUBJECT.match("".join(lines[opened + 1 : opened + 2]))


def doc_block_above_notes(
    comment: Node | None, data: bytes, first: Node, *, banners: bool = False, right_above: bool = False
) -> Node | None:
    """The doc block above comments that are no doc (``comment``: the last of them), parted
    from the definition below them (``first``) by a blank line (the JDK's
    ``SerializablePermission``: its Javadoc, then ``/* code was borrowed originally from
    java.lang.RuntimePermission. */``), or, where ``right_above`` (javac's reading:
    ``LanguageSpec.docs_over_notes``), by none (``Logger.getLogger``'s Javadoc, a blank line,
    then ``// Synchronization is not required here. …`` right above it; not a ``///`` doc):
    Javadoc's and TypeScript's readers take the last doc block before a definition as its
    doc; not a banner of stars, which C's headers write above a section, but where
    ``banners`` (a language whose doc reader takes one for a doc, as javac does:
    ``LanguageSpec.banner_docs``)."""
    if not (_apart(comment, first) or (right_above and comment is not None)):
        return None
    after = first
    while comment is not None and comment.type in COMMENT_TYPES:
        if data[comment.end_byte : after.start_byte].strip():
            return None  # code between: ``int x; // note``
        text = node_text(data, comment)
        if text.startswith("///"):
            return None  # a doc of its own (Doxygen's, JDK 23's Markdown doc)
        if doc_block(text):
            banner = not read_as_doc(text, banners=banners)  # C's ``/**** Function objects ****/``
            declares = after is first or banner or FILE_TAGS.search(text) or DECLARES_TYPE.search(text)
            return None if declares else comment  # itself apart, a banner, the file's, or a type's
        after, comment = comment, comment.prev_named_sibling
    return None


def _apart(comment: Node | None, first: Node) -> TypeGuard[Node]:
    """Whether ``comment`` is a comment that ends a blank line or more above ``first``."""
    return comment is not None and comment.type in COMMENT_TYPES and comment.end_point[0] < first.start_point[0] - 1


def doc_block(text: str) -> bool:
    return text.startswith("/**") and not text.startswith("/**/")


def read_as_doc(text: str, *, banners: bool) -> bool:
    """A doc block as its language's doc reader takes one: not a banner of stars (``/*****``),
    which Doxygen, JSDoc and rustdoc read as a plain comment, but where ``banners`` (javac's)."""
    return doc_block(text) and (banners or not text.startswith("/***"))


def after_doc_block(comment: Node, data: bytes) -> bool:
    """A comment after a doc block (``/** … */``) on the line it ends (the JDK's ``*/ //
    only partially generified``): a note beside the doc, no part of it, that does not part it
    from the definition below, as Javadoc's and JSDoc's readers take it."""
    before = comment.prev_named_sibling
    return (
        before is not None and before.type in COMMENT_TYPES and before.end_point[0] == comment.start_point[0]
        and doc_block(node_text(data, before))
    )  # fmt: skip


def marker_under_doc(node: Node, data: bytes) -> bool:
    """A block comment of one word under a doc block, that marks the definition below as a
    modifier would (the JDK's ``/*non-public*/``, 301 of them between a Javadoc and its
    definition, ``/* package-private */``, ``/*package*/ class …``): no part of the doc, and
    no more between it and its definition than an annotation is. One with no doc block above
    it is left as it was (a C header's ``/* Signature */`` above its functions)."""
    above = node.prev_named_sibling
    return (
        node.type in COMMENT_TYPES and bool(_MARKER.fullmatch(node_text(data, node)))
        and above is not None and above.type in COMMENT_TYPES and doc_block(node_text(data, above))
        and not data[above.end_byte : node.start_byte].strip()
    )  # fmt: skip




def shown_by_rdoc(comments: list[Node], data: bytes) -> list[Node]:
    """``comments`` (one a line) without the notes RDoc's reader hides of a doc, as notes under
    a doc block are none of it: from a line opened by ``#--`` to the next opened by ``#++``,
    both of them, or to the end where none is (``# Instance methods`` then ``#--`` then ``#
    TODO remove this later``)."""
    shown: list[Node] = []
    hidden = False
    for comment in comments:
        text = node_text(data, comment)
        if hidden:
            hidden = not text.startswith(_SHOW)
        elif text.startswith(_HIDE):
            hidden = True
        else:
            shown.append(comment)
    return shown


def without_rdoc_marks(comments: list[Node], data: bytes) -> list[Node]:
    """``comments`` but a bare ``#--`` and ``#++``: those RDoc hides all of, which are a plain
    comment, the doc of what is below it as any is (Active Record's ``#--`` then ``# Must be
    called in a synchronize block.``)."""
    return [comment for comment in comments if node_text(data, comment).rstrip() not in (_HIDE, _SHOW)]
