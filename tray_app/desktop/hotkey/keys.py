"""The hotkey setting: a human string such as ``Ctrl+Alt+Space`` parsed into a ``Hotkey``.

``parse_hotkey`` rejects what would steal ordinary typing (no modifier, or Shift alone); the
backends say a combination another app holds is taken (``HotkeyTaken``).
"""

from __future__ import annotations

from dataclasses import dataclass

MODIFIERS: dict[str, str] = {
    "ctrl": "ctrl",
    "control": "ctrl",
    "ctl": "ctrl",
    "alt": "alt",
    "option": "alt",
    "opt": "alt",
    "shift": "shift",
    "cmd": "cmd",
    "command": "cmd",
    "super": "cmd",
    "win": "cmd",
    "windows": "cmd",
    "meta": "cmd",
}
MODIFIER_ORDER = ("ctrl", "alt", "shift", "cmd")
MODIFIER_LABELS = {"ctrl": "Ctrl", "alt": "Alt", "shift": "Shift", "cmd": "Cmd"}
NAMED_KEYS: dict[str, str] = {
    "space": "space",
    "spacebar": "space",
    "enter": "enter",
    "return": "enter",
    "tab": "tab",
    "esc": "esc",
    "escape": "esc",
    "backspace": "backspace",
    "delete": "delete",
    "del": "delete",
    "insert": "insert",
    "ins": "insert",
    "home": "home",
    "end": "end",
    "pageup": "page_up",
    "pgup": "page_up",
    "page_up": "page_up",
    "pagedown": "page_down",
    "pgdn": "page_down",
    "page_down": "page_down",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    **{f"f{n}": f"f{n}" for n in range(1, 21)},
}
PUNCTUATION = set("`-=[];',./\\")
KEY_LABELS = {"page_up": "PageUp", "page_down": "PageDown", "esc": "Esc"} | {
    value: value.upper() if value[0] == "f" and value[1:].isdigit() else value.title()
    for value in NAMED_KEYS.values()
    if value not in ("page_up", "page_down", "esc")
}


class HotkeyError(ValueError):
    """The hotkey setting cannot be used; the message says why, for the settings page."""


class HotkeyTaken(RuntimeError):
    """Another app holds the combination (X11 BadAccess, Windows ERROR_HOTKEY_ALREADY_REGISTERED,
    Carbon eventHotKeyExistsErr)."""

    def __init__(self, label: str) -> None:
        super().__init__(f"{label} is taken by another app; choose another shortcut")
        self.label = label


@dataclass(frozen=True)
class Hotkey:
    modifiers: frozenset[str]
    key: str  # a NAMED_KEYS value, or one lower-case character

    def label(self) -> str:
        """The canonical human spelling, ``Ctrl+Alt+Space``."""
        parts = [MODIFIER_LABELS[m] for m in MODIFIER_ORDER if m in self.modifiers]
        parts.append(KEY_LABELS.get(self.key, self.key.upper()))
        return "+".join(parts)


def parse_hotkey(text: str) -> Hotkey:
    """``"Ctrl+Alt+Space"`` -> ``Hotkey``. Case and spaces do not matter."""
    raw = [part.strip().lower() for part in text.replace(" ", "").split("+")]
    if not text.strip() or any(not part for part in raw):
        raise HotkeyError(f"{text!r} is not a key combination like Ctrl+Alt+Space")
    modifiers: set[str] = set()
    keys: list[str] = []
    for part in raw:
        if part in MODIFIERS:
            modifiers.add(MODIFIERS[part])
        elif part in NAMED_KEYS:
            keys.append(NAMED_KEYS[part])
        elif len(part) == 1 and (part.isalnum() or part in PUNCTUATION):
            keys.append(part)
        else:
            raise HotkeyError(f"unknown key {part!r} in {text!r}")
    if len(keys) != 1:
        raise HotkeyError(f"{text!r} must name exactly one key besides the modifiers")
    if not modifiers - {"shift"}:
        raise HotkeyError(
            f"{text!r} needs Ctrl, Alt or Cmd: a key without them would steal ordinary typing"
        )
    return Hotkey(frozenset(modifiers), keys[0])


# ---- which backend ---------------------------------------------------------------------------
