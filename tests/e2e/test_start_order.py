"""The tray icon is shown before Core starts, so the app answers on its
instance socket while Core is still starting: a request that needs Core waits for it and then
works, and Quit at that moment ends everything cleanly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_setup import app_home
from tests.e2e.desktop_env import AppProcess, Child, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama

LOCALES = Path(__file__).resolve().parents[2] / "web" / "locales"
ZH = json.loads((LOCALES / "zh-CN.json").read_text("utf-8"))
EN = json.loads((LOCALES / "en.json").read_text("utf-8"))

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]


@pytest.fixture
def fresh(
    desktop: DesktopEnv, fake: FakeOllama, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[AppProcess]:
    """An app launched but not waited for: the test talks to it from its first moment."""
    settings = {"endpoint": fake.url, "default_model": "qwen3:8b", "language": "zh-CN"}
    app = AppProcess(desktop, app_home(tmp_path, settings), name=request.node.name)
    app.child = Child(app.name, app.launch())
    try:
        wait_for(lambda: app.send("ping"), 60, "the instance socket", interval=0.01)
        yield app
    finally:
        app.stop()


def test_a_show_sent_at_once_waits_for_core_and_opens_the_popup(fresh: AppProcess) -> None:
    fresh.send("show")  # answered only once Core runs
    state = fresh.state()
    assert state["started"] is True
    wait_for(lambda: fresh.state()["visible"], 60, "the popup")
    booted = "document.querySelector('#app') && document.querySelector('#app').dataset.ready"
    wait_for(lambda: fresh.eval_js(booted), 60, "the page")
    # the page reads its settings from Core: the zh-CN label of the composer's send button
    send = "document.querySelector('#btn-send').getAttribute('aria-label')"
    assert fresh.eval_js(send) == ZH["composer.send"]
    assert fresh.core("get_settings")["language"] == "zh-CN"


def test_the_first_tray_menu_speaks_the_settings_language(fresh: AppProcess) -> None:
    """The settings say zh-CN: the menu is Chinese from the first answer the app gives, while
    Core may still be starting (the language is read from the settings file before it)."""
    first = fresh.state()
    menu = first["tray_menu"]
    assert ZH["tray.open_chat"] in menu and ZH["tray.quit"] in menu, first
    assert EN["tray.open_chat"] not in menu
    wait_for(lambda: fresh.state()["started"], 60, "Core")
    assert ZH["tray.quit"] in fresh.state()["tray_menu"]  # and after Core took over


def test_quit_at_once_ends_everything(fresh: AppProcess) -> None:
    assert fresh.child is not None
    fresh.send("quit")
    assert fresh.child.popen.wait(10) == 0
