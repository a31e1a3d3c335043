"""What goes into the page is ASCII, so no engine can cut it (pywebview GTK's run_js did)."""

from __future__ import annotations

import json
import re

from tray_app.base.events import ContentDelta
from tray_app.desktop.popup.wire import clean_text, dispatch_script, item, js_ascii

HARD = "中文 👍🏽 👩🏽‍💻 e\u0301 مرحبا \u202eevil\u202c a\u2028b\u2029c — “q” </script>"


def test_dispatch_script_is_ascii_and_round_trips() -> None:
    event = item(ContentDelta(session_id="s", message_id="m", text=HARD))
    script = dispatch_script([event, {"type": "ui_action", "action": "x"}], 7)
    assert script.isascii()
    match = re.fullmatch(r"\(window\.metona \? window\.metona\.dispatch\((.*), 7\) : -1\)", script)
    assert match, script
    assert json.loads(match.group(1))[0]["text"] == HARD


def test_lone_surrogates_and_nul_are_replaced() -> None:
    assert clean_text("a\ud83db\udc00c\x00d") == "a\ufffdb\ufffdc\ufffdd"
    assert clean_text("👍🏽") == "👍🏽"  # a real pair is one code point in Python
    cleaned = item({"type": "x", "nested": [{"k\x00": "v\ud800"}]})
    assert cleaned == {"type": "x", "nested": [{"k\ufffd": "v\ufffd"}]}
    assert dispatch_script([cleaned], 1).isascii()


def test_js_ascii_escapes_utf16_units() -> None:
    assert js_ascii("plain") == "plain"
    assert js_ascii("'中'") == "'\\u4e2d'"
    assert js_ascii("'😀'") == "'\\ud83d\\ude00'"
    escaped = js_ascii(HARD)
    assert escaped.isascii()
    # JSON reads \\uXXXX the way JavaScript does: the same string comes back.
    assert json.loads('"' + escaped.replace('"', '\\"') + '"') == HARD
