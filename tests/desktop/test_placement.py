"""Where the popup opens relative to the tray icon or the pointer."""

from __future__ import annotations

from tray_app.desktop.popup.placement import Rect, centred, pick_screen, place_popup

SCREEN = Rect(0, 0, 1280, 800)
SIZE = (460, 660)


def test_below_an_icon_in_a_top_panel_and_kept_on_screen() -> None:
    x, y = place_popup(SIZE, Rect(1247, 1, 32, 30), SCREEN)
    assert y == 1 + 30 + 8
    assert x + SIZE[0] <= 1280 - 8  # pushed left, not off the edge


def test_above_an_icon_in_a_bottom_taskbar() -> None:
    x, y = place_popup(SIZE, Rect(600, 770, 24, 24), SCREEN)
    assert y + SIZE[1] == 770 - 8
    assert x == 600 + 12 - SIZE[0] // 2


def test_a_popup_taller_than_the_space_is_clamped_inside_the_work_area() -> None:
    area = Rect(0, 32, 1280, 500)
    x, y = place_popup(SIZE, Rect(100, 300, 1, 1), area)
    assert area.y + 8 <= y
    assert x >= 8


def test_second_monitor_coordinates() -> None:
    right = Rect(1920, 0, 1920, 1080)
    screens = [Rect(0, 0, 1920, 1080), right]
    assert pick_screen(screens, 2500, 10) == right
    assert pick_screen(screens, 99999, 10) == screens[0]
    assert pick_screen([], 0, 0) is None
    x, _y = place_popup(SIZE, Rect(3800, 0, 24, 24), right)
    assert right.x <= x and x + SIZE[0] <= right.right


def test_centred() -> None:
    assert centred((200, 100), Rect(0, 0, 1000, 500)) == (400, 200)
