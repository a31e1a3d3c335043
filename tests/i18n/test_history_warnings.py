"""Why history is off or read-only, in the user's language: the codes' texts agree between the
page and the terminal, a real damaged database gives a coded warning, and the real CLI in a
Chinese locale says it in Chinese with the path's controls written out."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tray_app.base.paths import AppPaths
from tray_app.history_warnings import TEXT_KEYS, HistoryWarning, warning_info, warning_text
from tray_app.store.opening import open_chat_store

LOCALES = Path(__file__).resolve().parents[2] / "web" / "locales"


def _holes(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_both_locales_say_every_code_with_the_same_placeholders() -> None:
    en = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    zh = json.loads((LOCALES / "zh-CN.json").read_text(encoding="utf-8"))
    for page in (en, zh):
        mine = {k for k in page if k.startswith(("history_warning.", "store_problem."))}
        assert mine == TEXT_KEYS
    for key in TEXT_KEYS:
        assert _holes(en[key]) == _holes(zh[key]), key


def damaged_history(home: Path) -> AppPaths:
    paths = AppPaths.under(home)
    paths.ensure()
    paths.database_file.write_bytes(b"not a database \xe2\x80\xae " * 400)
    return paths


def test_a_damaged_database_gives_a_coded_warning_said_in_chinese(tmp_path: Path) -> None:
    home = tmp_path / "数据 \u202e"
    paths = damaged_history(home)
    _chats, warning = open_chat_store(paths, recover=False)
    assert isinstance(warning, HistoryWarning) and warning.startswith("History is off: ")
    info = warning_info(warning)
    assert info is not None and info["code"] == "history_off"
    assert info["why"] == {
        "code": "damaged",
        "params": {"path": str(paths.database_file), "detail": "file is not a database"},
    }
    said = warning_text(warning, "zh-CN", lambda v: str(v).replace("\u202e", "⟨U+202E⟩"))
    assert said.startswith("本次不保存聊天记录：聊天记录 "), said
    assert "⟨U+202E⟩" in said and "\u202e" not in said
    assert said.endswith("已损坏或不是数据库（“file is not a database”）。它保持原样，以便恢复。")
    # A plain sentence (an older caller) is shown as it is.
    assert warning_text("History is off: x", "zh-CN") == "History is off: x"


def _cli(home: Path, tmp_path: Path, lang: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, METONA_HOME=str(home), HOME=str(tmp_path), NO_COLOR="1", LANG=lang)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "tray_app", *args],
        input="",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=90,
        env=env,
    )


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh_CN.UTF-8", "metona-tray sessions: 本次不保存聊天记录：聊天记录 "),
        ("en_US.UTF-8", "metona-tray sessions: History is off: The chat history "),
    ],
)
def test_the_cli_says_why_history_is_off_in_its_language(
    tmp_path: Path, lang: str, said: str
) -> None:
    home = tmp_path / "家 \u202egpj"
    damaged_history(home)
    result = _cli(home, tmp_path, lang, "sessions")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(said), result.stderr
    assert "⟨U+202E⟩gpj" in lines[0] and "\u202e" not in result.stderr
    if lang.startswith("zh"):
        assert "History is off" not in result.stderr and "已损坏" in lines[0]
