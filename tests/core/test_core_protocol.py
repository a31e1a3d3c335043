"""``Core`` satisfies ``CoreApi``, the protocol every caller is written against.

mypy checks this module (``pyproject.toml`` lists it next to ``tray_app``): the assignment in
``test_core_is_a_core_api`` fails type checking as soon as a command's name, parameters or
result type differ between ``Core`` and ``CoreApi``. The test itself also runs, comparing the
signatures at run time, so a stale protocol fails ``make test`` too.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from tray_app.base.paths import AppPaths
from tray_app.core.protocol import CoreApi
from tray_app.core.service import Core
from tray_app.store.settings import Settings


def commands() -> list[str]:
    return sorted(
        name
        for name, member in vars(CoreApi).items()
        if not name.startswith("_") and callable(member)
    )


def test_core_is_a_core_api(tmp_path: Path) -> None:
    core = Core(settings=Settings(), paths=AppPaths.under(tmp_path), persist_settings=False)
    api: CoreApi = core  # the check that matters is mypy's, on this line
    assert api is core
    for name in commands():
        assert inspect.signature(getattr(Core, name)) == inspect.signature(
            getattr(CoreApi, name)
        ), name


def test_the_protocol_lists_every_public_command_of_core() -> None:
    own = {
        name for name, member in vars(Core).items() if not name.startswith("_") and callable(member)
    }
    life_cycle = {"start", "stop"}
    assert own - life_cycle == set(commands())
