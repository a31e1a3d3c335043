"""What the tray icon says, in the UI language (en, zh-CN): its menu, its tooltip and the short
reports a menu action shows. The page's strings are in web/locales; a test keeps both tables
complete (tests/desktop/test_tray_text.py)."""

from __future__ import annotations

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
        "tool_calling": "Tool calling",
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
        "tool_calling": "工具调用",
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
