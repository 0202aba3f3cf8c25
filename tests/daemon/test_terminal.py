"""``daemon/terminal.py``: control characters shown escaped, JSON kept exact."""

from __future__ import annotations

import io
import json

from recalld.daemon.terminal import VisibleOutput, one_line, one_lined, visible

HOSTILE = "a\x1b[2Jb\x07c\rd\x7fe\x9bf\tg\nh\x00"


def test_every_control_character_but_tabs_and_line_ends_is_escaped():
    assert visible(HOSTILE) == "a\\u001b[2Jb\\u0007c\\u000dd\\u007fe\\u009bf\tg\nh\\u0000"
    assert one_line(HOSTILE) == "a\\u001b[2Jb\\u0007c\\u000dd\\u007fe\\u009bf\\tg\\nh\\u0000"
    assert one_line(7) == 7 and one_lined(None, ("path",)) is None
    assert one_lined({"path": "x\ny", "line": 3}, ("path", "kind")) == {"path": "x\\ny", "line": 3}
    assert visible("naïve → ok") == "naïve → ok"  # printable text as it is


def test_bidirectional_controls_and_line_separators_are_escaped():
    """Trojan Source's code reads in another order than a terminal shows it; U+2028 and
    U+2029 break lines where some terminals and editors read them. Each was printed raw."""
    trojan = "/*\u202e } \u2066if (admin)\u2069 \u2066 begin admins only */"
    assert visible(trojan) == "/*\\u202e } \\u2066if (admin)\\u2069 \\u2066 begin admins only */"
    assert visible("a\u2028b\u2029c\u200fd\u061ce") == "a\\u2028b\\u2029c\\u200fd\\u061ce"
    assert json.loads(f'"{visible(trojan)}"') == trojan  # each the JSON escape of what it stands for
    assert visible("שלום, עולם") == "שלום, עולם"  # right-to-left text itself as it is


def test_json_through_the_output_means_the_same():
    out = io.StringIO()
    stream = VisibleOutput(out)  # type: ignore[arg-type]
    record = {"path": HOSTILE, "text": "é\u0085\u009f\u202e\u2028"}
    assert stream.write(json.dumps(record, ensure_ascii=False) + "\n") > 0
    written = out.getvalue()
    assert not any(ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) < 0xA0 for c in written)
    assert json.loads(written) == record
    assert stream.getvalue() == written  # the rest is the stream's


def test_readable_log_lines_escape_what_they_name(capsys):
    import logging

    import structlog

    from recalld.daemon.logs import configure_logging, get_logger

    kept, handlers = structlog.get_config(), list(logging.getLogger().handlers)
    configure_logging(level="info", fmt="console")
    try:
        get_logger("t").warning("skipped", path="e\x1b[2Jvil.py")
    finally:  # the configuration as it was: its stream is not this test's
        structlog.configure(**kept)
        logging.getLogger().handlers = handlers
    assert "path=e\\u001b[2Jvil.py" in capsys.readouterr().err
