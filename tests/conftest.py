"""Shared test set-up: every test gets its own METONA_HOME and no network beyond loopback."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tray_app.base.paths import AppPaths

pytest_plugins = [
    "tests.fakes.plugin",
    "tests.fakes.core_rig",
    "tests.support.secret_service",
    "tests.support.terminal_rig",
]


def _is_loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX
        return True
    host = address[0] if isinstance(address, tuple) and address else ""
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests may talk to servers on this machine only (fake model servers, the page harness)."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> Any:
        if not _is_loopback(address):
            raise OSError(f"test tried to reach {address!r}: only loopback is allowed")
        return real_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> Any:
        if not _is_loopback(address):
            raise OSError(f"test tried to reach {address!r}: only loopback is allowed")
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


@pytest.fixture(autouse=True)
def metona_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private METONA_HOME for each test: nothing the app writes may land elsewhere."""
    home = tmp_path_factory.mktemp("metona_home")
    monkeypatch.setenv("METONA_HOME", str(home))
    return home


@pytest.fixture
def app_paths(metona_home: Path) -> Iterator[AppPaths]:
    paths = AppPaths.under(metona_home)
    paths.ensure()
    yield paths


@pytest.fixture
def fresh_locales() -> Iterator[None]:
    """The page's locale files are read once a process (``web_files.locale_texts``): for a test
    that points METONA_WEB_DIR at other ones."""
    from tray_app.i18n import forget

    forget()
    yield
    forget()
