"""What Bash's grammar (tree-sitter-bash 0.25) cannot read, given to it the same length for
a second reading of a script it read with syntax errors (``rereading.py``):

- A redirection that opens a file for reading and writing (``exec 0<> /dev/console``,
  ``exec 8<>V.input``): read as one for reading.
- A number in a base (``$((16#$align_hex))``, ``$((0x${n%:*}))`` reads): its ``#`` as ``*``.
- Brackets in a parameter expansion's pattern (``${target_ip%%[]]*}``, ``${server%%]:*}``):
  read as ``_``, as the grammar reads them as the end of a test or a glob's class.
- A ``case`` pattern of a glob and a quote (``?*' '?*)``), which the grammar's scanner
  reads to the end of the file: the quoted text read as ``_``, quotes and all.
- A substring's offset and length given by variables (``${addr:$i:1}``, ``${data:$2:$3}``):
  their ``$`` read as ``_``, a name the grammar reads there.
- An arithmetic test whose operator a variable holds (``((pct $cond))``, Linux's selftests):
  the space before the variable read as ``+``.
- An extended glob (``[[ $cur == @(*/|[.~])* ]]``, ``--@(dis|en)able-error-code)``,
  ``+([0-9])``, ``@(_*|'')``, one in another): read as ``_``, operator, parentheses and all.

Definitions read their text from the source as written: only the tree sees this.
"""

from __future__ import annotations

import re

_READ_WRITE = re.compile(rb"(?<=[\s\d])<>(?=[ \t]*[^\s<>|&;])")
_BASE = re.compile(rb"(?<=\$\(\()([ \t]*\d{1,2})#(?=[\w$])|(?<=[\s(+*/-])(\d{1,2})#(?=[\w$])")
_EXPANSION_PATTERN = re.compile(rb"\$\{[\w@*#?!-]+(?:%%?|##?|//?)[^{}\n]*\}")
_SUBSTRING = re.compile(rb"\$\{[\w@*#?!-]+:(?![-=+?])[^{}\n]*\$\w[^{}\n]*\}")
_VARIABLE = re.compile(rb"\$(?=\w)")
_ARITHMETIC = re.compile(rb"\(\([^()\n]*\)\)")
_HELD_OPERATOR = re.compile(rb"(?<=[\w}\]])[ \t](?=[ \t]*\$\w)")  # two operands in a row: the second holds an operator
_EXTGLOB = re.compile(rb"(?:(?<![$\\])[@!]|(?<![\w)$\\])[?*+])\([^()\n`]*\)")  # not arithmetic's ``a*(b)``
NESTING = 3  # extended globs within extended globs read (``-@(*([^ -])f|-file )``)
_GLOB_QUOTED_CASE = re.compile(rb"^([ \t]*[?*][^'\n()]*)'([^'\n]*)'([^'\n()]*\)[ \t]*(?:#[^\n]*)?)$", re.MULTILINE)


def readable(data: bytes) -> bytes:
    """``data`` as Bash's grammar reads it, the same length and lines."""
    if b"<>" in data:
        data = _READ_WRITE.sub(b"< ", data)
    if b"#" in data:
        data = _BASE.sub(lambda m: (m.group(1) or m.group(2)) + b"*", data)
    if b"${" in data:
        data = _EXPANSION_PATTERN.sub(lambda m: m.group(0).replace(b"[", b"_").replace(b"]", b"_"), data)
    for _depth in range(NESTING if b"(" in data else 0):  # the innermost first
        data, found = _EXTGLOB.subn(lambda m: b"_" * len(m.group(0)), data)
        if not found:
            break
    if b"${" in data:
        data = _SUBSTRING.sub(lambda m: _VARIABLE.sub(b"_", m.group(0)), data)
    if b"((" in data:
        data = _ARITHMETIC.sub(lambda m: _HELD_OPERATOR.sub(b"+", m.group(0)), data)
    if b"'" in data:
        data = _GLOB_QUOTED_CASE.sub(lambda m: m.group(1) + b"_" * (len(m.group(2)) + 2) + m.group(3), data)
    return data
