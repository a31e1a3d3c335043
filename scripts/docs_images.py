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
    crop_menu: bool = False  # a whole X screen: keep only the tray's menu at the top right


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
        crop_menu=True,
    ),
)


def run_tests(tests: list[str]) -> None:
    """Run the tests that take the pictures; a failure stops here, before anything is copied."""
    command = [str(ROOT / ".venv" / "bin" / "pytest"), "-p", "no:cacheprovider", "-q", *tests]
    if subprocess.run(command, cwd=ROOT, check=False).returncode != 0:
        sys.exit("docs-images: a screenshot test failed; docs/images/ is left as it was")


def menu_only(image: Image.Image) -> Image.Image:
    """The tray menu from a whole screen: the lit area right of the popup, under the tray.

    The e2e desktop docks the tray at the top right of a black root window and centres the
    popup, so the menu and the icon are what is not black in the screen's top-right part."""
    width, height = image.size
    region = (width * 7 // 10, 0, width, height // 2)
    box = image.crop(region).convert("L").point(lambda v: 255 if v > 16 else 0).getbbox()
    if box is None:
        return image
    left, top, right, bottom = box
    return image.crop((region[0] + left, top, region[0] + right, bottom))


def save(shot: Shot, since: float) -> str:
    """Copy one fresh artifact into docs/images/, optimised; say what happened."""
    source = ARTIFACTS / shot.artifact
    if not source.exists() or source.stat().st_mtime < since:
        return f"kept   {shot.name}.png (the test did not take {shot.artifact}: skipped?)"
    with Image.open(source) as image:
        picture = menu_only(image.convert("RGB")) if shot.crop_menu else image.convert("RGB")
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
