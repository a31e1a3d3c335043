"""Single instance: the lock, the authenticated socket, forwarding, stale-lock recovery."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tray_app.desktop.instance.instance import InstanceError, SingleInstance, socket_address

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix socket protocol")


@pytest.fixture
def runtime(tmp_path: Path) -> Path:
    return tmp_path / "run"


@pytest.fixture
def first(runtime: Path) -> Iterator[SingleInstance]:
    instance = SingleInstance(runtime)
    assert instance.acquire()
    received: list[dict[str, Any]] = []

    def handler(request: dict[str, Any]) -> dict[str, Any]:
        received.append(request)
        if request["command"] == "boom":
            raise RuntimeError("handler failed")
        return {"ok": True, "echo": request["command"]}

    instance.serve(handler)
    instance.received = received  # type: ignore[attr-defined]
    yield instance
    instance.release()


def test_second_launch_forwards_its_command(first: SingleInstance, runtime: Path) -> None:
    second = SingleInstance(runtime)
    assert not second.acquire()
    assert second.send({"command": "show"}) == {"ok": True, "echo": "show"}
    assert first.received == [{"command": "show"}]  # type: ignore[attr-defined]
    assert second.holder_pid() == os.getpid()


def test_the_lock_holds_against_another_process(first: SingleInstance, runtime: Path) -> None:
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from tray_app.desktop.instance.instance import SingleInstance
        other = SingleInstance(Path({str(runtime)!r}))
        print(other.acquire(), other.send({{"command": "toggle"}})["echo"])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    assert out.split() == ["False", "toggle"]


def test_a_wrong_key_is_refused(first: SingleInstance, runtime: Path) -> None:
    intruder = SingleInstance(runtime)
    intruder.key_path = runtime / "forged.key"
    intruder.key_path.write_text("00" * 32)
    with pytest.raises(InstanceError):
        intruder.send({"command": "quit"}, timeout=5)
    assert first.received == []  # type: ignore[attr-defined]
    assert SingleInstance(runtime).send({"command": "ping"})["ok"]  # still serving


def test_files_are_private(first: SingleInstance, runtime: Path) -> None:
    assert runtime.stat().st_mode & 0o777 == 0o700
    assert first.key_path.stat().st_mode & 0o777 == 0o600
    assert Path(first.address).stat().st_mode & 0o077 == 0


def test_handler_errors_come_back_as_replies(first: SingleInstance, runtime: Path) -> None:
    reply = SingleInstance(runtime).send({"command": "boom"})
    assert reply["ok"] is False and "handler failed" in reply["error"]


def test_a_stale_lock_and_socket_from_a_crash_are_taken_over(runtime: Path) -> None:
    runtime.mkdir(parents=True)
    (runtime / "instance.lock").write_text("999999\n")  # nobody holds the flock
    crashed = SingleInstance(runtime)
    Path(crashed.address).write_text("")  # a dead socket file
    (runtime / "instance.key").write_text("11" * 32)

    instance = SingleInstance(runtime)
    assert instance.acquire()
    instance.serve(lambda request: {"ok": True})
    try:
        assert SingleInstance(runtime).send({"command": "ping"}) == {"ok": True}
        assert instance.holder_pid() == os.getpid()
    finally:
        instance.release()
    assert not Path(instance.address).exists()
    assert not instance.key_path.exists()
    again = SingleInstance(runtime)
    assert again.acquire()  # released for the next launch
    again.release()


def test_nobody_answering_is_an_error_not_a_hang(runtime: Path) -> None:
    with pytest.raises(InstanceError):
        SingleInstance(runtime).send({"command": "show"}, timeout=2)


def test_long_runtime_folders_get_a_short_private_socket_path(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    address, family = socket_address(deep)
    assert family == "AF_UNIX"
    assert len(os.fsencode(address)) <= 100
    assert Path(address).parent.stat().st_mode & 0o777 == 0o700
    assert socket_address(deep) == (address, family)  # every launch agrees

    instance = SingleInstance(deep)
    assert instance.acquire()
    instance.serve(lambda request: {"ok": True, "n": 1})
    try:
        assert SingleInstance(deep).send({"command": "ping"})["n"] == 1
    finally:
        instance.release()
