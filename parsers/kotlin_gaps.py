"""What Kotlin's grammar (tree-sitter-kotlin 1.1) cannot read, given to it the same length
for a second reading of a file it read with syntax errors, or that holds what it misreads
(``rereading.py``):

- A primary constructor's annotations on a line of their own before its modifier, as
  ktfmt writes a long class head (``public class ReadableMapBuffer`` / ``@DoNotStrip`` /
  ``private constructor(``): the grammar takes the line for the next declaration's, and
  ``private constructor(`` for none. React Native 0.88's ``ReadableMapBuffer.kt`` gave
  one symbol of its 50. The annotations are blanked, and so is a multiplatform ``actual``
  or ``expect`` there (``internal actual constructor(``, kotlinx' and the standard
  library's).
- An accessor's annotations (``@Suppress("UNUSED_PARAMETER") set(value) = Unit``): blanked.
- ``dynamic`` (Kotlin/JS's type, a keyword to the grammar) as a name: React Native's
  ``val dynamic = pool.get()`` left ``DynamicFromMap.kt`` an ERROR node. Read as ``_ynamic``,
  a name as good as a type.
- The annotations before an annotation class of no parameters nor body (expo's
  ``@Target(…)`` ``@Retention(…)`` ``annotation class Required``), which the grammar reads
  as an infix call, with no error (``MISREAD``: a file holding one is read again though it
  read without an error): blanked.

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

# Annotations (``@DoNotStrip``, ``@get:JvmName("x")``, one or more, over one line or several),
# each name whole (possessive: ``@Target(`` is no ``@Tar`` before ``get(``)
_ANNOTATIONS = rb"(?:@[\w.:]++(?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?\s*)+"
_VISIBILITY = rb"(?:(?:public|private|internal|protected)[ \t]+)"
# first on their line, right before a modifier and ``constructor``; before an accessor
_CONSTRUCTOR_ANNOTATIONS = re.compile(
    rb"(?m)^[ \t]*(" + _ANNOTATIONS + rb")(?=(?:" + _VISIBILITY + rb"(?:(?:actual|expect)[ \t]+)?"
    rb"|(?:actual|expect)[ \t]+)constructor\b)"
)
_CONSTRUCTOR_PLATFORM = re.compile(rb"(?m)^[ \t]*" + _VISIBILITY + rb"?((?:actual|expect))(?=[ \t]+constructor\b)")
_ACCESSOR_ANNOTATIONS = re.compile(
    rb"(?m)^[ \t]*(" + _ANNOTATIONS + rb")(?=" + _VISIBILITY + rb"?[gs]et\b[ \t]*[(=\n])"
)
# before an annotation class of no modifier, parameters nor body, which the grammar reads
# after annotations as an infix call, ``annotation class(Required)``, without an error (with
# a modifier, ``public annotation class Stable``, it reads the class and its annotations)
MISREAD = re.compile(
    rb"(?m)^[ \t]*(" + _ANNOTATIONS + rb")(?=annotation[ \t]+class[ \t]+\w+[ \t]*(?://[^\n]*)?$)"
)
_DYNAMIC = re.compile(rb"\bdynamic\b")
_NOT_SPACE = re.compile(rb"\S")


def readable(data: bytes) -> bytes:
    """``data`` as Kotlin's grammar reads it, the same length and lines."""
    if b"constructor" in data:
        data = _CONSTRUCTOR_PLATFORM.sub(_blanked, _CONSTRUCTOR_ANNOTATIONS.sub(_blanked, data))
    data = _ACCESSOR_ANNOTATIONS.sub(_blanked, data)
    if misreads(data):
        data = MISREAD.sub(_blanked, data)
    return _DYNAMIC.sub(b"_ynamic", data) if b"dynamic" in data else data


def misreads(data: bytes) -> bool:
    """Whether ``data`` holds an annotation class the grammar misreads (``MISREAD``)."""
    return b"annotation" in data and MISREAD.search(data) is not None


def _blanked(match: re.Match[bytes]) -> bytes:
    """The match with its annotations (group 1) blanked, its indentation and lines kept."""
    return match.group(0)[: match.start(1) - match.start(0)] + _NOT_SPACE.sub(b" ", match.group(1))
