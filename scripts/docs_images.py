"""Regenerate the pictures in docs/images/ from the tests that already take them.

The docs show the app as the tests see it, so a picture is never staged by hand: this runs the
screenshot tests (the page in real Chromium, and the desktop under Xvfb), then copies the chosen
frames from test-artifacts/ into docs/images/ under stable names, re-encoded as optimised PNGs.
A test that skips (no Chromium, no Xvfb) leaves that picture as it was and says so.

    .venv/bin/python scripts/docs_images.py            # or: make docs-images
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
IMAGES = ROOT / "docs" / "images"
LIMIT = 300_000  # bytes: a picture in the docs should load at once


@dataclass(frozen=True)
class Shot:
    """One picture in the docs: the test that takes it, its file there, and the name here."""

    test: str
    artifact: str
    name: str
    #: For a whole X screen: where to look for what is lit (fractions of the screen: left, top,
    #: right, bottom); the picture is cut to that part's bounding box of non-black pixels.
    lit_in: tuple[float, float, float, float] | None = None


WEB = "tests/web/test_screenshots.py::test_screenshots"
SHOTS = (
    Shot(f"{WEB}[en-light]", "web/light-en-approval.png", "popup-approval-light"),
    Shot(f"{WEB}[en-light]", "web/light-en-chat.png", "popup-chat-light"),
    Shot(f"{WEB}[en-light]", "web/light-en-settings.png", "settings-light"),
    Shot(f"{WEB}[en-light]", "web/light-en-settings-risk.png", "settings-risk-light"),
    Shot(f"{WEB}[en-dark]", "web/dark-en-chat.png", "popup-chat-dark"),
    Shot(f"{WEB}[zh-CN-light]", "web/light-zh-CN-chat.png", "popup-chat-zh-CN"),
    Shot(
        f"{WEB}_of_tools_commands_mcp_and_export[en-dark]",
        "web/dark-en-edit-approval.png",
        "popup-edit-approval-dark",
    ),
    Shot(
        f"{WEB}_of_tools_commands_mcp_and_export[en-light]",
        "web/light-en-settings-mcp.png",
        "settings-mcp-light",
    ),
    Shot(
        "tests/e2e/test_desktop.py::test_quit_from_the_tray_menu_stops_everything",
        "e2e/07-tray-menu.png",
        "tray-menu",
        lit_in=(0.7, 0, 1, 0.5),  # right of the centred popup, under the tray at the top right
    ),
    Shot(
        "tests/e2e/test_real_notification_daemon.py::test_the_real_daemon_shows_the_approval_bubble",
        "e2e/real-notification-daemon.png",
        "notification",
        lit_in=(0.5, 0, 1, 0.5),  # notification-daemon's bubble at the top right
    ),
)


def run_tests(tests: list[str]) -> None:
    """Run the tests that take the pictures; a failure stops here, before anything is copied."""
    command = [str(ROOT / ".venv" / "bin" / "pytest"), "-p", "no:cacheprovider", "-q", *tests]
    if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
        sys.exit("docs-images: a screenshot test failed; docs/images/ is left as it was")


def lit_part(image: Image.Image, where: tuple[float, float, float, float]) -> Image.Image:
    """What is lit in one part of a whole screen: the e2e desktop's root window is black, so a
    menu or a notification is the bounding box of the non-black pixels where it opens."""
    width, height = image.size
    left, top, right, bottom = where
    region = (int(width * left), int(height * top), int(width * right), int(height * bottom))
    box = image.crop(region).convert("L").point(lambda v: 255 if v > 16 else 0).getbbox()
    if box is None:
        return image
    x0, y0, x1, y1 = box
    return image.crop((region[0] + x0, region[1] + y0, region[0] + x1, region[1] + y1))


def save(shot: Shot, since: float) -> str:
    """Copy one fresh artifact into docs/images/, optimised; say what happened."""
    source = ARTIFACTS / shot.artifact
    if not source.exists() or source.stat().st_mtime < since:
        return f"kept   {shot.name}.png (the test did not take {shot.artifact}: skipped?)"
    with Image.open(source) as image:
        picture = image.convert("RGB")
        if shot.lit_in is not None:
            picture = lit_part(picture, shot.lit_in)
        target = IMAGES / f"{shot.name}.png"
        picture.save(target, optimize=True)
    size = target.stat().st_size
    warning = f"  OVER {LIMIT // 1000} KB" if size > LIMIT else ""
    shape = f"{picture.width}x{picture.height}, {size // 1024} KB"
    return f"wrote  {target.relative_to(ROOT)} ({shape}){warning}"


def main() -> None:
    import time

    IMAGES.mkdir(parents=True, exist_ok=True)
    started = time.time()
    run_tests(list(dict.fromkeys(shot.test for shot in SHOTS)))
    for shot in SHOTS:
        print(save(shot, started))


if __name__ == "__main__":
    main()
