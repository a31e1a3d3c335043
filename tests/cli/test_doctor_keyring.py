"""``metona-tray doctor`` as a user runs it, against the real OS keyring (gnome-keyring-daemon's
Secret Service on a private D-Bus session): found and unlocked, locked (said without a prompt),
and gone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import secretstorage

from tests.support.secret_service import (
    KeyringDaemon,
    connect,
    restore_keyring,
    running_keyring,
    use_keyring,
)

ROOT = Path(__file__).resolve().parents[2]
SECRET_SERVICE = "keyring.backends.SecretService.Keyring"


def doctor(
    tmp_path: Path, *args: str, lang: str = "en_US.UTF-8"
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_", "LC_"))}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", LANG=lang)
    env.pop("LANGUAGE", None)
    env.pop("DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-m", "tray_app", "doctor", "--endpoint", "http://127.0.0.1:9", *args],
        input="", capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done


def keyring_report(tmp_path: Path) -> Any:
    return json.loads(doctor(tmp_path, "--json").stdout)["keyring"]


def test_doctor_finds_the_unlocked_secret_service(
    real_keyring: KeyringDaemon, tmp_path: Path
) -> None:
    report = keyring_report(tmp_path)
    assert report == {
        "usable": True, "backend": SECRET_SERVICE, "reason": None, "locked": False,
        "state": "unlocked", "problem": None, "causes": [],
    }  # fmt: skip
    assert f"[ok ] keyring: {SECRET_SERVICE}" in doctor(tmp_path).stdout


def test_doctor_says_a_locked_keyring_is_locked_and_a_gone_one_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_keyring(tmp_path / "own") as daemon:
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            with connect(daemon.address) as bus:
                secretstorage.Collection(bus).lock()
            report = keyring_report(tmp_path)
            assert report["usable"] is True and report["locked"] is True
            said = doctor(tmp_path).stdout
            assert f"[warn] keyring: {SECRET_SERVICE} is locked" in said
            with connect(daemon.address) as bus:  # asked, never prompted: still locked
                assert secretstorage.Collection(bus).is_locked()

            daemon.stop()
            gone = keyring_report(tmp_path)
            assert gone["usable"] is False and gone["reason"] and gone["locked"] is None
            assert "[warn] keyring:" in doctor(tmp_path).stdout
            # why, in Chinese: no Secret Service on the bus, keyring's own words quoted
            said = doctor(tmp_path, lang="zh_CN.UTF-8").stdout
            assert (
                "       系统密钥环服务未运行或已停止响应。keyring 库说：“The Secret Service daemon "
                "is neither running nor activatable through D-Bus”"
            ) in said.splitlines(), said
            assert "[注意] 密钥环：" in said
        finally:
            restore_keyring(previous)


def test_doctor_says_a_new_session_has_no_keyring_yet_and_creates_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_keyring(tmp_path / "own", unlock=False) as daemon:  # no login keyring
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            report = keyring_report(tmp_path)
            assert report["usable"] is True and report["state"] == "missing"
            assert report["locked"] is False
            said = doctor(tmp_path).stdout
            assert f"[info] keyring: {SECRET_SERVICE} has no keyring yet" in said, said
            chinese = doctor(tmp_path, lang="zh_CN.UTF-8").stdout
            assert f"密钥环：{SECRET_SERVICE} 还没有密钥环" in chinese, chinese
            with connect(daemon.address) as bus:  # looked at, nothing created
                paths = [c.collection_path for c in secretstorage.get_all_collections(bus)]
            assert paths == ["/org/freedesktop/secrets/collection/session"]
        finally:
            restore_keyring(previous)
