"""The self-test report's words in both languages. The ``ok``/``FAIL``/``skip`` marks and the
details (module, file and library names, error messages) stay as they are, so a report pasted
into an issue reads the same to everyone."""

from __future__ import annotations

import unicodedata

TITLES = {
    "en": {
        "modules": "modules",
        "dependencies": "dependencies",
        "desktop libraries": "desktop libraries",
        "ripgrep": "ripgrep",
        "web page": "web page",
        "settings and store": "settings and store",
        "agent turn": "agent turn",
        "popup process": "popup process",
        "popup window": "popup window",
    },
    "zh-CN": {
        "modules": "应用模块",
        "dependencies": "依赖库",
        "desktop libraries": "桌面库",
        "ripgrep": "ripgrep",
        "web page": "网页界面",
        "settings and store": "设置与存储",
        "agent turn": "智能体回合",
        "popup process": "弹窗进程",
        "popup window": "弹窗窗口",
    },
}
TEXT = {
    "en": {
        "no_display": "no display (DISPLAY / WAYLAND_DISPLAY unset)",
        "whole": "metona-tray self-test: whole",
        "broken": "metona-tray self-test: broken: {n} check(s) failed",
    },
    "zh-CN": {
        "no_display": "没有图形显示（未设置 DISPLAY / WAYLAND_DISPLAY）",
        "whole": "metona-tray 自检：完整",
        "broken": "metona-tray 自检：不完整，{n} 项检查失败",
    },
}
WIDTH = 19  # columns of the title field (the longest English title, "settings and store", + 1)


def padded(title: str, width: int = WIDTH) -> str:
    """``title`` padded to ``width`` terminal columns (CJK characters take two)."""
    columns = sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in title)
    return title + " " * max(1, width - columns)
