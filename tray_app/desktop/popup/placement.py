"""Where the popup opens: next to the tray icon (or the pointer), inside the current screen.

Pure geometry, so it is unit-tested without a display; the GUI code only measures the anchor
(the tray icon's rectangle when the platform tells it, else the pointer) and the work area
of the monitor that contains it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.right and self.y <= y < self.bottom


def pick_screen(screens: list[Rect], x: int, y: int) -> Rect | None:
    """The screen containing the point, else the first one (pointer between monitors)."""
    for screen in screens:
        if screen.contains(x, y):
            return screen
    return screens[0] if screens else None


def place_popup(
    size: tuple[int, int], anchor: Rect, area: Rect, margin: int = 8
) -> tuple[int, int]:
    """Top-left corner for a popup of ``size`` next to ``anchor`` within ``area``.

    Below the anchor when it is in the upper half of the screen (a top panel), above it
    otherwise (a taskbar at the bottom); centred on it horizontally; always kept on screen.
    """
    width = min(size[0], area.width - 2 * margin)
    height = min(size[1], area.height - 2 * margin)
    x = anchor.x + anchor.width // 2 - width // 2
    if anchor.y + anchor.height // 2 < area.y + area.height // 2:
        y = anchor.bottom + margin
    else:
        y = anchor.y - height - margin
    x = max(area.x + margin, min(x, area.right - width - margin))
    y = max(area.y + margin, min(y, area.bottom - height - margin))
    return x, y


def centred(size: tuple[int, int], area: Rect) -> tuple[int, int]:
    return area.x + (area.width - size[0]) // 2, area.y + (area.height - size[1]) // 2
