"""The tray icon drawing: sizes, badges per state, the pending count."""

from __future__ import annotations

from pathlib import Path

import pytest

from tray_app.desktop.tray.icons import (
    BADGE_COLOURS,
    BUBBLE,
    badge_label,
    tray_image,
    tray_title,
    write_app_icons,
)


def near(pixel: tuple[int, ...], colour: tuple[int, ...], tolerance: int = 40) -> bool:
    return sum(abs(a - b) for a, b in zip(pixel[:3], colour[:3], strict=True)) < tolerance


def badge_pixels(state: str, pending: int = 0, size: int = 64) -> int:
    image = tray_image(state, pending, size).convert("RGBA")
    corner = image.crop((size // 2, size // 2, size, size)).tobytes()
    colour = BADGE_COLOURS[state]
    return sum(1 for i in range(0, len(corner), 4) if near(tuple(corner[i : i + 4]), colour))


@pytest.mark.parametrize("size", [16, 22, 24, 32, 48, 64, 256])
def test_every_size_is_square_rgba_with_a_transparent_background(size: int) -> None:
    image = tray_image("idle", size=size)
    assert image.size == (size, size)
    assert image.mode == "RGBA"
    assert image.getpixel((0, size - 1))[3] == 0  # a corner outside the bubble


def test_idle_is_the_bare_bubble() -> None:
    image = tray_image("idle", size=64)
    assert near(image.getpixel((10, 20)), BUBBLE)
    for state in BADGE_COLOURS:
        colour = BADGE_COLOURS[state]
        corner = image.crop((32, 32, 64, 64)).tobytes()
        assert not any(near(tuple(corner[i : i + 4]), colour) for i in range(0, len(corner), 4))


@pytest.mark.parametrize("state", ["working", "waiting", "error"])
def test_busy_states_carry_their_badge_colour(state: str) -> None:
    assert badge_pixels(state, pending=1) > 100


def test_the_waiting_badge_shows_the_count() -> None:
    one, two = tray_image("waiting", 1), tray_image("waiting", 2)
    assert one.tobytes() != two.tobytes()
    assert tray_image("waiting", 12).tobytes() == tray_image("waiting", 99).tobytes()  # "9+"


@pytest.mark.parametrize(
    ("state", "pending", "label"),
    [("waiting", 1, "1"), ("waiting", 9, "9"), ("waiting", 10, "9+"), ("waiting", 0, ""),
     ("error", 0, "!"), ("working", 3, ""), ("idle", 2, "")],
)  # fmt: skip
def test_badge_label(state: str, pending: int, label: str) -> None:
    assert badge_label(state, pending) == label


def test_unknown_state_draws_as_idle_and_images_are_copies() -> None:
    image = tray_image("confused")
    assert image.tobytes() == tray_image("idle").tobytes()
    image.putpixel((0, 0), (1, 2, 3, 255))
    assert tray_image("idle").getpixel((0, 0)) != (1, 2, 3, 255)


def test_tooltip_says_what_the_badge_shows() -> None:
    assert tray_title("waiting", 2) == "Metona Tray: 2 approvals waiting"
    assert tray_title("waiting", 1) == "Metona Tray: 1 approval waiting"
    assert "failed" in tray_title("error", 0)
    assert tray_title("idle", 0) == "Metona Tray"


def test_app_icon_files_for_packaging(tmp_path: Path) -> None:
    files = write_app_icons(tmp_path)
    assert files["png"].stat().st_size > 0
    assert files["ico"].read_bytes()[:4] == b"\x00\x00\x01\x00"
