"""MCP secrets through the real OS keyring (gnome-keyring-daemon's Secret Service on a private
D-Bus session, picked by keyring itself): stored from Core with Chinese names and emoji, read
into a server's env, replaced (the server restarts), removed; and ``metona-tray mcp test`` as
a user runs it, reading the same keyring; a locked keyring and a stopped daemon said as such."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import secretstorage

from tests.fakes.core_rig import Rig
from tests.mcp.conftest import ROOT, fake_entry
from tests.support.secret_service import (
    KeyringDaemon,
    connect,
    restore_keyring,
    running_keyring,
    stored,
    use_keyring,
)
from tests.support.waiting import eventually
from tray_app.store.secrets import SERVICE, SecretStore

SERVER = "本地 服务"
NAME = f"{SERVER}.FAKE_MCP_TOKEN"
FIRST = "令牌-🔑-\u202eexe.txt-" + "a" * 2000
SECOND = "第二个 🗝️ token " + "b" * 100


def entry(marks: Path) -> dict[str, Any]:
    return fake_entry(
        marks, env={"FAKE_MCP_MARKS": str(marks), "FAKE_MCP_TOKEN": f"keyring:{NAME}"}
    )


def tokens(marks: Path) -> dict[int, str]:
    """What each started server process found in its env, by process id."""
    return {
        int(p.name.split("-", 1)[1]): p.read_text(encoding="utf-8") for p in marks.glob("token-*")
    }


def status(rig: Rig) -> dict[str, Any]:
    return next((s for s in rig.core.mcp_status() if s["name"] == SERVER), {})


def test_a_secret_stored_from_core_reaches_the_server_and_replacing_it_restarts_it(
    make_rig: Any, real_keyring: KeyringDaemon, marks: Path, metona_home: Path
) -> None:
    rig: Rig = make_rig(secrets=SecretStore, mcp_servers={SERVER: entry(marks)})
    failed = eventually(lambda: status(rig).get("status") == "failed" and status(rig), 60,
                      "the server to fail without its secret")  # fmt: skip
    assert NAME in failed["error"] and tokens(marks) == {}
    assert failed["error_code"] is None  # not stored: nothing the keyring could not read

    saved = rig.core.set_mcp_secret(NAME, FIRST)
    assert saved == {
        "reference": f"keyring:{NAME}",
        "stored_in_keyring": True,
        "warning": None,
        "problem": None,
    }
    user = f"mcp:{NAME}"
    assert stored(real_keyring.address, {"service": SERVICE, "username": user}) == [FIRST]
    eventually(lambda: status(rig).get("status") == "ready", 60, "the server with its secret")
    assert list(tokens(marks).values()) == [FIRST]

    rig.core.set_mcp_secret(NAME, SECOND)
    assert stored(real_keyring.address, {"service": SERVICE, "username": user}) == [SECOND]
    eventually(lambda: SECOND in tokens(marks).values(), 60, "a restarted server with the new one")
    assert sorted(tokens(marks).values()) == sorted([FIRST, SECOND])  # two processes
    eventually(lambda: status(rig).get("status") == "ready", 60, "the restarted server ready")

    rig.core.set_mcp_secret(NAME, None)  # removed: the server cannot start any more
    assert stored(real_keyring.address, {"service": SERVICE, "username": user}) == []
    eventually(lambda: status(rig).get("status") == "failed", 60, "the server without it")
    assert len(tokens(marks)) == 2

    shown = json.dumps([rig.core.get_settings(), rig.core.mcp_status()], ensure_ascii=False)
    sent = json.dumps([e.model_dump() for e in rig.log.events], ensure_ascii=False)
    for secret in (FIRST, SECOND):
        assert secret[:20] not in shown and secret[:20] not in sent
    logged = [p for p in metona_home.rglob("*") if p.is_file() and b"a" * 2000 in p.read_bytes()]
    assert logged == []


def test_mcp_test_in_a_terminal_reads_the_secret_from_the_keyring(
    real_keyring: KeyringDaemon, marks: Path, metona_home: Path, tmp_path: Path
) -> None:
    SecretStore().set(f"mcp:{NAME}", FIRST)  # as `keyring set metona-tray mcp:NAME` would
    (metona_home / "config").mkdir(parents=True, exist_ok=True)
    (metona_home / "config" / "settings.json").write_text(
        json.dumps({"mcp_servers": {SERVER: entry(marks)}}), encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", LANG="zh_CN.UTF-8")
    assert env["DBUS_SESSION_BUS_ADDRESS"] == real_keyring.address
    assert "PYTHON_KEYRING_BACKEND" not in env  # keyring finds the Secret Service itself
    done = subprocess.run(
        [sys.executable, "-m", "tray_app", "mcp", "test", SERVER],
        input="", capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert SERVER in done.stdout and "Traceback" not in done.stderr
    assert list(tokens(marks).values()) == [FIRST]
    assert FIRST[:20] not in done.stdout + done.stderr


def test_a_locked_keyring_is_said_as_locked_and_a_secret_stored_then_lasts_the_session(
    make_rig: Any, marks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_keyring(tmp_path / "own") as daemon:  # locked below: not the shared one
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            rig: Rig = make_rig(secrets=SecretStore, mcp_servers={SERVER: entry(marks)})
            rig.core.set_mcp_secret(NAME, FIRST)
            eventually(lambda: status(rig).get("status") == "ready", 60, "the server ready")

            with connect(daemon.address) as bus:
                secretstorage.Collection(bus).lock()
            changed = {SERVER: {**entry(marks), "timeout_s": 45}}  # restarts the server
            rig.core.update_settings({"mcp_servers": changed})
            failed = eventually(lambda: status(rig).get("status") == "failed" and status(rig), 60,
                              "the restarted server to fail")  # fmt: skip
            assert "cannot be read" in failed["error"] and "Locked" in failed["error"]
            assert "which is not there" not in failed["error"]  # it is there: say why not
            assert failed["error_code"] == "keyring_unreadable"  # the page words it

            saved = rig.core.set_mcp_secret(NAME, SECOND)
            assert saved["stored_in_keyring"] is False and saved["problem"] == "locked"
            eventually(lambda: SECOND in tokens(marks).values(), 60, "the server with it")
            assert rig.core.get_settings()["keyring_problem"] == "locked"
            for secret in (FIRST, SECOND):
                assert secret[:20] not in json.dumps(rig.core.mcp_status(), ensure_ascii=False)
                assert secret[:20] not in (saved["warning"] or "")
        finally:
            restore_keyring(previous)


def test_mcp_test_with_the_keyring_daemon_gone_says_the_keyring_cannot_be_read(
    marks: Path, metona_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_keyring(tmp_path / "own") as daemon:
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            SecretStore().set(f"mcp:{NAME}", FIRST)
            daemon.stop()  # the bus stays; nothing on it offers the Secret Service now
            (metona_home / "config").mkdir(parents=True, exist_ok=True)
            (metona_home / "config" / "settings.json").write_text(
                json.dumps({"mcp_servers": {SERVER: entry(marks)}}), encoding="utf-8"
            )
            env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
            env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", LANG="C.UTF-8")
            done = subprocess.run(
                [sys.executable, "-m", "tray_app", "mcp", "test", SERVER],
                input="", capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
            )  # fmt: skip
        finally:
            restore_keyring(previous)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "in the system keyring, which cannot be read now" in done.stdout, done.stdout
    assert tokens(marks) == {} and FIRST[:20] not in done.stdout + done.stderr
