"""What the tray icon says, in the UI language (en, zh-CN): its menu, its tooltip and the short
reports a menu action shows. The page's strings are in web/locales; a test keeps both tables
complete (tests/desktop/test_tray_text.py)."""

from __future__ import annotations

import json
import locale
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

TRAY_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "toggle_chat": "Toggle chat",
        "open_chat": "Open chat",
        "new_chat": "New chat",
        "pending": "Pending approvals ({n})",
        "model": "Model",
        "no_models": "No models found",
        "refresh_models": "Refresh list",
        "mode": "Mode",
        "mode_chat": "Chat only",
        "mode_read": "Read only",
        "mode_ask": "Ask",
        "mode_auto": "Auto…",
        "undo_last": "Undo last change",
        "settings": "Settings",
        "quit": "Quit",
        "failed": "{what} failed",
        "nothing_undone": "Nothing undone",
        "change_undone": "Change undone",
        "title_idle": "Metona Tray",
        "title_waiting_one": "Metona Tray: {n} approval waiting",
        "title_waiting_other": "Metona Tray: {n} approvals waiting",
        "title_working": "Metona Tray: working…",
        "title_error": "Metona Tray: the last answer failed",
    },
    "zh-CN": {
        "toggle_chat": "显示或隐藏对话",
        "open_chat": "打开对话",
        "new_chat": "新对话",
        "pending": "待确认（{n}）",
        "model": "模型",
        "no_models": "没有找到模型",
        "refresh_models": "刷新列表",
        "mode": "模式",
        "mode_chat": "仅聊天",
        "mode_read": "只读",
        "mode_ask": "询问",
        "mode_auto": "自动…",
        "undo_last": "撤销上一次更改",
        "settings": "设置",
        "quit": "退出",
        "failed": "{what}失败",
        "nothing_undone": "没有可撤销的更改",
        "change_undone": "已撤销更改",
        "title_idle": "Metona Tray",
        "title_waiting_one": "Metona Tray：{n} 个操作等待确认",
        "title_waiting_other": "Metona Tray：{n} 个操作等待确认",
        "title_working": "Metona Tray：正在处理…",
        "title_error": "Metona Tray：上一个回答失败了",
    },
}


def tray_text(lang: str, key: str, **fields: Any) -> str:
    """The string for ``key`` in ``lang`` (English for a language without a table)."""
    return TRAY_TEXT.get(lang, TRAY_TEXT["en"])[key].format(**fields)


def tray_title(state: str, pending: int, lang: str = "en") -> str:
    """The tooltip: the same information as the badge, in words."""
    if state == "waiting":
        key = "title_waiting_one" if pending == 1 else "title_waiting_other"
        return tray_text(lang, key, n=pending)
    if state in ("working", "error"):
        return tray_text(lang, f"title_{state}")
    return tray_text(lang, "title_idle")


#: A settings file larger than this is not the app's (it writes a few KB): not read at start.
MAX_SETTINGS_BYTES = 1024 * 1024


def start_language(settings_file: Path, env: Mapping[str, str] = os.environ) -> str:
    """The UI language before Core has started, so the first menu is already in the user's
    language: the ``language`` of the settings file, read as plain JSON (nothing of Core,
    pydantic or the store is imported before the icon). Anything unreadable means "system".
    Core's settings take over when it starts (``Tray.attach``)."""
    try:
        with open(settings_file, "rb") as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
        raw = json.loads(data) if len(data) <= MAX_SETTINGS_BYTES else None
    except (OSError, ValueError, RecursionError):
        raw = None
    chosen = raw.get("language") if isinstance(raw, dict) else None
    if isinstance(chosen, str) and chosen in TRAY_TEXT:
        return chosen
    return _system_language(env)


def _system_language(env: Mapping[str, str]) -> str:
    """``core.turns.system_language`` without importing Core (the same order of variables)."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(name)
        if value:
            return "zh-CN" if value.lower().startswith("zh") else "en"
    code = locale.getlocale()[0] or ""
    return "zh-CN" if code.lower().startswith("zh") else "en"
