"""What the command line prints of stored text, made safe for a terminal.

Paths, names, signatures, code and commit subjects come from the repositories indexed,
and a hostile one may hold control characters: an escape sequence that clears the
screen, retitles the window or rewrites what was printed before it, a carriage return
that hides a line's start, a bidirectional override that shows code in another order than
it reads. The CLI's stdout shows each control character as its JSON
escape (``\\u001b``; tabs and line ends as they are), which is also what that character
means inside a JSON string, so ``--json`` and ``export`` stay valid and lossless. Fields
printed on one line of their own (a path, a name) show their tabs and line ends escaped
too (``one_line``), as ``git`` quotes such paths. A write that fails (a full disk, a
closed pipe) is an ``OutputError``, told apart from the command's other OSErrors.
"""

from __future__ import annotations

import os
from typing import Any, TextIO

# C0 and C1 controls and DEL; Unicode's bidirectional controls, which reorder what a line
# shows (Trojan Source's ``/*\u202e } \u2066if (admin)\u2069 \u2066 begin admins only */``);
# and the line and paragraph separators, which some terminals and editors break lines at.
_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_CONTROLS = (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI, 0x2028, 0x2029)
_VISIBLE = {code: f"\\u{code:04x}" for code in _CONTROLS if chr(code) not in "\t\n"}
_ONE_LINE = {code: f"\\u{code:04x}" for code in _CONTROLS} | {ord("\t"): "\\t", ord("\n"): "\\n"}


def visible(text: str) -> str:
    """``text`` with its control characters but tabs and line ends escaped."""
    return text.translate(_VISIBLE)


def one_line(text: Any) -> Any:
    """A string with every control character escaped, line ends and tabs too; anything
    else as it is."""
    return text.translate(_ONE_LINE) if isinstance(text, str) else text


def is_name(text: str) -> bool:
    """Whether ``text`` may name something that lines show (a repository; a manual
    memory's user or org): printable and not blank. One given by a person or an agent is
    refused otherwise, not escaped wherever it is shown."""
    return bool(text.strip()) and text.isprintable()


def one_lined(record: dict[str, Any] | None, keys: tuple[str, ...]) -> Any:
    """``record`` with the fields ``keys`` made ``one_line``: what a line prints of it."""
    if record is None:
        return None
    return {**record, **{key: one_line(record[key]) for key in keys if key in record}}


class OutputError(Exception):
    """A write to the CLI's stdout failed: not a RecalldError, which a command that goes
    on past one repository's failure would catch and then fail to write for each."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(f"cannot write the output: {cause.strerror or cause}")
        self.message = str(self)
        self.closed = isinstance(cause, BrokenPipeError)  # its reader is gone (`| head`): nothing to say


class VisibleOutput:
    """A text stream that writes through ``visible``; everything else is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.written = 0  # characters: a command that printed nothing may be run again

    def write(self, text: str) -> int:
        try:
            self.stream.write(text.translate(_VISIBLE))
        except OSError as exc:
            raise OutputError(exc) from exc
        self.written += len(text)
        return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            raise OutputError(exc) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def drop_output(stream: TextIO) -> None:
    """Point ``stream`` at /dev/null after a write to it failed: what its buffer still
    holds would fail again when Python flushes it at exit, which says so on stderr
    ("Exception ignored ... BrokenPipeError") and exits 120 (the advice of Python's
    signal docs for SIGPIPE). A stream without a file descriptor has nothing to flush."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
