"""Fixtures for the desktop end-to-end tests: one private desktop per test module (and per
xdist worker), a fresh app per test, the fake Ollama on loopback. Everything they start is
stopped by PID, also when a test fails. Screenshots go to ``test-artifacts/e2e/``."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_setup import app_home, app_settings, running
from tests.e2e.desktop_env import ROOT, AppProcess, DesktopEnv, missing_tools
from tests.fakes.ollama_server import FakeOllama

ARTIFACTS = ROOT / "test-artifacts" / "e2e"
DESKTOP_MODULES = ("webview", "pystray", "desktop_notifier", "dbus_fast", "gi", "Xlib")


def _why_not() -> str | None:
    if not sys.platform.startswith("linux"):
        return "the desktop end-to-end tests run on Linux (Xvfb)"
    tools = missing_tools()
    if tools:
        return f"missing {', '.join(tools)} (scripts/install-test-deps.sh installs them as root)"
    modules = [m for m in DESKTOP_MODULES if importlib.util.find_spec(m) is None]
    if modules:
        return f"desktop extras missing ({', '.join(modules)}): pip install -e '.[desktop]'"
    return None


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DesktopEnv]:
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    env = DesktopEnv(tmp_path_factory.mktemp("desktop"), ARTIFACTS)
    env.start()
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder


@pytest.fixture
def app(
    desktop: DesktopEnv, fake: FakeOllama, workspace: Path, tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[AppProcess]:  # fmt: skip
    home = app_home(tmp_path, app_settings(fake.url, workspace))
    yield from running(AppProcess(desktop, home, name=request.node.name))
