"""The four modes the popup's header and the tray menu switch between, over two settings.

Chat only turns the tools off; Read only, Ask and Auto keep them on with ``confirmation_mode``
``read_only``, ``all_writes`` (or ``delete_only``, which Settings alone sets) and
``full_auto``. The page has the same mapping (web/js/chat/mode_switch.js).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Mode = Literal["chat", "read", "ask", "auto"]
MODES: tuple[Mode, ...] = ("chat", "read", "ask", "auto")


def mode_of(settings: Mapping[str, Any]) -> Mode:
    """The mode the settings are in."""
    if settings.get("tools_enabled") is False:
        return "chat"
    confirmation = settings.get("confirmation_mode")
    if confirmation == "read_only":
        return "read"
    return "auto" if confirmation == "full_auto" else "ask"


def mode_patch(mode: Mode, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings change that puts the app in ``mode``."""
    if mode == "chat":
        return {"tools_enabled": False}
    ask = "delete_only" if settings.get("confirmation_mode") == "delete_only" else "all_writes"
    confirmation = {"read": "read_only", "ask": ask, "auto": "full_auto"}[mode]
    return {"tools_enabled": True, "confirmation_mode": confirmation}
