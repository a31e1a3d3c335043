"""Every string the tray shows exists in English and Simplified Chinese, and the menu speaks
the language the settings choose."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tray_app.desktop import notify_text
from tray_app.desktop.tray import TrayState, reduce_state
from tray_app.desktop.tray_text import TRAY_TEXT, tray_text, tray_title
from tray_app.events import SettingsUpdated, StateChanged

ROOT = Path(__file__).resolve().parents[2] / "tray_app" / "desktop"


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("table", [TRAY_TEXT, notify_text.TEXT], ids=["tray", "notifications"])
def test_both_languages_have_every_string(table: dict[str, dict[str, str]]) -> None:
    en, zh = table["en"], table["zh-CN"]
    assert set(en) == set(zh)
    for key in en:
        assert en[key].strip() and zh[key].strip(), key
        assert placeholders(zh[key]) == placeholders(en[key]), key
        # Chinese text has no space between Chinese characters ("是否允许 写入文件").
        assert re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", zh[key]) is None, key


def test_every_key_the_tray_uses_exists() -> None:
    source = (ROOT / "tray.py").read_text(encoding="utf-8")
    used = set(re.findall(r'_(?:t|label)\("(\w+)"', source))
    used |= set(re.findall(r'_later\([^)]*?"(\w+)"\)', source))
    assert used, "no keys found: has the tray stopped using the table?"
    assert used <= set(TRAY_TEXT["en"]), used - set(TRAY_TEXT["en"])
    # No English label is left outside the table.
    assert re.search(r'item\(\s*"[A-Z]', source) is None


def test_the_menu_follows_the_language_setting() -> None:
    state = reduce_state(TrayState(), [SettingsUpdated(settings={"language": "zh-CN"})])
    assert state.language == "zh-CN"
    assert tray_text(state.language, "undo_last") == "撤销上一次更改"
    assert tray_text(state.language, "pending", n=2) == "待确认（2）"
    state = reduce_state(state, [StateChanged(state="waiting", pending=1)])
    assert tray_title(state.state, state.pending, state.language) == "Metona Tray：1 个操作等待确认"
    english = reduce_state(state, [SettingsUpdated(settings={"language": "en"})])
    assert tray_title(english.state, english.pending, english.language) == (
        "Metona Tray: 1 approval waiting"
    )
