"""The tray icon, drawn with Pillow, and its state badges.

Drawn rather than shipped so that every state (idle, working, waiting with a count, error) and
every size each OS asks for comes from one function, and the badge can carry the live count of
pending approvals. Shapes are drawn 4x larger and scaled down for smooth edges at 16-24 px.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

from tray_app.i18n import t

State = Literal["idle", "working", "waiting", "error"]

BUBBLE = (91, 91, 214, 255)  # indigo: readable on light and dark panels
BUBBLE_EDGE = (58, 58, 160, 255)
DOTS = (255, 255, 255, 255)
BADGE_COLOURS: dict[str, tuple[int, int, int, int]] = {
    "working": (14, 165, 233, 255),  # sky blue
    "waiting": (245, 158, 11, 255),  # amber
    "error": (220, 38, 38, 255),  # red
}
BADGE_TEXT: dict[str, tuple[int, int, int, int]] = {
    "waiting": (30, 20, 0, 255),
    "error": (255, 255, 255, 255),
}
TRAY_SIZE = 64  # pystray scales this to the panel on every backend
SUPERSAMPLE = 4
# Sizes each platform uses: Windows .ico, macOS .icns/menu bar, Linux hicolor theme.
PLATFORM_SIZES: dict[str, tuple[int, ...]] = {
    "win32": (16, 20, 24, 32, 40, 48, 64, 256),
    "darwin": (16, 32, 64, 128, 256, 512, 1024),
    "linux": (16, 22, 24, 32, 48, 64, 128, 256),
}


def badge_label(state: str, pending: int) -> str:
    """What the badge says: the pending count (``9+`` beyond nine), ``!`` for errors."""
    if state == "waiting":
        if pending <= 0:
            return ""
        return str(pending) if pending <= 9 else "9+"
    if state == "error":
        return "!"
    return ""


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: the bitmap font, still legible
        return ImageFont.load_default()


def _draw_bubble(draw: ImageDraw.ImageDraw, s: int) -> None:
    """A chat bubble with a tail and three dots: recognisable at 16 px."""
    pad = s * 6 // 64
    bottom = s * 48 // 64
    radius = s * 14 // 64
    box = (pad, pad + s * 2 // 64, s - pad, bottom)
    edge = max(1, s // 32)
    draw.rounded_rectangle(box, radius=radius, fill=BUBBLE, outline=BUBBLE_EDGE, width=edge)
    tail = [
        (s * 16 // 64, bottom - edge),
        (s * 14 // 64, s * 60 // 64),
        (s * 30 // 64, bottom - edge),
    ]
    draw.polygon(tail, fill=BUBBLE)
    dot_r = s * 4 // 64
    cy = (box[1] + box[3]) // 2
    for cx in (s * 20 // 64, s * 32 // 64, s * 44 // 64):
        draw.ellipse((cx - dot_r, cy - dot_r, cx + dot_r, cy + dot_r), fill=DOTS)


def _draw_badge(draw: ImageDraw.ImageDraw, s: int, state: str, label: str) -> None:
    colour = BADGE_COLOURS[state]
    diameter = s * 34 // 64 if label else s * 26 // 64
    right, bottom = s - 1, s - 1
    box = (right - diameter, bottom - diameter, right, bottom)
    ring = max(1, s * 3 // 64)
    draw.ellipse(box, fill=colour, outline=(255, 255, 255, 255), width=ring)
    if not label:
        return
    font = _font(diameter * (62 if len(label) == 1 else 50) // 100)
    cx = (box[0] + box[2]) / 2
    cy = (box[1] + box[3]) / 2
    draw.text((cx, cy), label, fill=BADGE_TEXT.get(state, DOTS), font=font, anchor="mm")


@lru_cache(maxsize=64)
def _render(state: str, label: str, size: int) -> Image.Image:
    s = size * SUPERSAMPLE
    image = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    _draw_bubble(draw, s)
    if state in BADGE_COLOURS:
        _draw_badge(draw, s, state, label)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def tray_image(state: str = "idle", pending: int = 0, size: int = TRAY_SIZE) -> Image.Image:
    """The tray icon for an app state; unknown states draw as idle. Returns a fresh copy."""
    if state not in ("idle", "working", "waiting", "error"):
        state = "idle"
    return _render(state, badge_label(state, pending), size).copy()


def tray_title(state: str, pending: int, lang: str = "en") -> str:
    """The tooltip: the same information as the badge, in words (``tray.title_*``)."""
    if state == "waiting":
        return t("tray.title_waiting", lang, n=pending)
    if state in ("working", "error"):
        return t(f"tray.title_{state}", lang)
    return t("tray.title_idle", lang)


def write_app_icons(folder: Path) -> dict[str, Path]:
    """The app icon files packaging needs: ``.png`` (Linux), ``.ico`` (Windows), ``.icns``."""
    folder.mkdir(parents=True, exist_ok=True)
    big = tray_image("idle", size=1024)
    out = {"png": folder / "metona-tray.png", "ico": folder / "metona-tray.ico"}
    big.resize((256, 256), Image.Resampling.LANCZOS).save(out["png"])
    big.save(out["ico"], sizes=[(n, n) for n in PLATFORM_SIZES["win32"]])
    try:
        icns = folder / "metona-tray.icns"
        big.save(icns)
        out["icns"] = icns
    except (OSError, ValueError, KeyError):  # some Pillow builds cannot write .icns
        pass
    return out
