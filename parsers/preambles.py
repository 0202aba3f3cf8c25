"""A file's header that is no description of it: a copyright or licence notice, directives
alone, or the header an IDE's template writes (``docstrings``' file docs pass over it)."""

from __future__ import annotations

import re

_TEMPLATE_HEADER = re.compile(r"^created by .+ on \d", re.IGNORECASE | re.MULTILINE)
_LICENCE_LINE = re.compile(r"^(?:the )?(?:mit|bsd|isc|apache|mozilla|gnu|l?gpl|agpl|mpl|eclipse)\b.*licen[cs]e"
                           r"|licensed (?:to|under)\b|subject to the terms of\b|is free software\b", re.IGNORECASE)
# Anywhere in a file's header block; the last three are the GPL's and a public-domain
# dedication's words (the JDK's java.util.concurrent: "This file is available under and
# governed by the GNU General Public License ... released to the public domain").
_LICENCE_ANYWHERE = re.compile(
    r"copyright|\(c\) \d{4}|©|spdx-license-identifier|@license"
    r"|general public licen[cs]e|free software foundation|(?:released|dedicated) (?:in)?to the public domain",
    re.IGNORECASE,
)


def is_preamble(text: str) -> bool:
    """A copyright or licence notice (a file's header in most projects), directives alone
    (``//go:build linux``), or the header an IDE's template writes (Xcode's file name,
    project and ``Created by … on 20.01.26.``), not a description."""
    first_line = text.split("\n", 1)[0]
    return not text or bool(
        _LICENCE_LINE.search(first_line) or _LICENCE_ANYWHERE.search(text) or _TEMPLATE_HEADER.search(text)
    )
