"""The file dialogs' titles in the user's language, and their size inside the work area."""

from __future__ import annotations

import pytest

from tray_app.desktop.popup.dialogs import fitted_size, title


@pytest.mark.parametrize(
    ("language", "export", "folder"),
    [
        ("en", "Export chat", "Choose a folder"),
        ("zh-CN", "导出聊天", "选择文件夹"),
        ("fr", "Export chat", "Choose a folder"),
    ],
)
def test_titles_say_what_the_dialog_is_for(language: str, export: str, folder: str) -> None:
    assert (title(language, "export"), title(language, "folder")) == (export, folder)


@pytest.mark.parametrize(
    ("area", "size"),
    [
        ((1280, 800), (900, 640)),
        ((1280, 770), (900, 640)),
        ((800, 600), (720, 510)),
        ((1, 1), (1, 1)),
    ],
)
def test_a_dialog_fits_the_work_area(area: tuple[int, int], size: tuple[int, int]) -> None:
    assert fitted_size(*area) == size
    assert size[0] <= area[0] and size[1] <= area[1]
