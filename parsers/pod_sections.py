"""Perl's POD sections by the sub they document. A module's POD, wherever it stands (most
often after ``__END__``: Mojolicious, DBIx::Class, Catalyst), documents each method under
a heading or an item of its name: ``=head2 app``, ``=head2 new(%args)``, ``=item
$git->command( COMMAND … )``, ``=head2 C<< Foo->build >>``. A sub without a doc of its
own takes the first such section of its name: its title a line, then its paragraphs up to
the next heading (an item's: the next item or its list's end) or ``=cut``, as POD reads.
A bullet (``=item *``) or a number (``=item 1.``) names nothing; nor does a module's
``=head1`` (``NAME``, ``METHODS``). The sections are the file's first package's, whose
module the POD describes (``HTTP::Tiny``'s ``=head2 new`` is not ``HTTP::Tiny::Handle``'s
``new``), or ``main``'s in a file of no package.
"""

from __future__ import annotations

import re

from recalld.parsers.debt import pod_lines
from recalld.parsers.docstrings import POD
from recalld.parsers.perl_packages import PACKAGES, package_name
from recalld.parsers.treesitter import Node, node_text

_TITLE = re.compile(r"^=(head[2-4]|item)[ \t]+(\S.*)$")
# a title's name past an invocant or a package (``$git->command``, ``Foo::Bar->new``,
# ``Mojo::Base::attr``), up to what ends a name
_NAME = re.compile(r"^(?:[$@%&]?[\w:]+[ \t]*->[ \t]*)?(?:\w+::)*([A-Za-z_]\w*)(?=$|[\s(;,{\[])")
_ENDS_HEADING = re.compile(r"^=(?:head\d|cut)\b")
_ENDS_ITEM = re.compile(r"^=(?:head\d|item|back|cut)\b")


def pod_sections(root: Node, data: bytes) -> tuple[str, dict[str, str]]:
    """The package the file's POD documents ("" for ``main``) and the doc of each name a
    POD heading or item of it titles, the first section of a name."""
    sections: dict[str, str] = {}
    package: str | None = None
    for node in root.named_children:
        if node.type == POD:
            _read(node_text(data, node).splitlines(), sections)
        elif package is None and node.type in PACKAGES and node.child_by_field_name("name") is not None:
            package = package_name(node, data)
    return package or "", sections


def _read(lines: list[str], sections: dict[str, str]) -> None:
    for at, line in enumerate(lines):
        title = _TITLE.match(line)
        if title is None:
            continue
        name = _NAME.match(" ".join(pod_lines(title.group(2))).strip())
        if name is None or name.group(1) in sections:
            continue
        ends = _ENDS_ITEM if title.group(1) == "item" else _ENDS_HEADING
        end = next((i for i in range(at + 1, len(lines)) if ends.match(lines[i])), len(lines))
        text = "\n".join(pod_lines("\n".join(lines[at:end]))).strip()
        sections[name.group(1)] = re.sub(r"\n{3,}", "\n\n", text)
