"""The settings file: fallbacks with a warning, the previous good copy, crash-safe saves."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.store.children import Child
from tray_app.base.errors import StoreError
from tray_app.base.paths import AppPaths
from tray_app.store.settings import (
    Settings,
    backup_file,
    load_settings,
    save_problem,
    save_settings,
)


def test_a_corrupt_file_without_a_backup_gives_defaults_and_a_warning(
    app_paths: AppPaths, caplog: pytest.LogCaptureFixture
) -> None:
    path = app_paths.settings_file
    for broken in (b'{"default_model": "llama', b"\xff\xfe\x00garbage", b"[1, 2]"):
        path.write_bytes(broken)
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            assert load_settings(path) == Settings()
        assert "is unusable" in caplog.text and "using defaults" in caplog.text
        assert path.read_bytes() == broken  # left for the user to look at


def test_a_corrupt_file_falls_back_to_the_previous_good_copy(
    app_paths: AppPaths, caplog: pytest.LogCaptureFixture
) -> None:
    path = app_paths.settings_file
    save_settings(Settings(default_model="first"), path)
    assert not backup_file(path).exists()  # nothing to keep yet
    save_settings(Settings(default_model="second"), path)
    assert json.loads(backup_file(path).read_text())["default_model"] == "first"
    assert load_settings(path).default_model == "second"
    path.write_text("{ half a file", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert load_settings(path).default_model == "first"
    assert "using the previous copy" in caplog.text
    save_settings(Settings(default_model="third"), path)  # a broken file is not kept as .bak
    assert json.loads(backup_file(path).read_text())["default_model"] == "first"


def test_a_missing_file_gives_defaults_silently(
    app_paths: AppPaths, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert load_settings(app_paths.settings_file) == Settings()
    assert caplog.text == ""


def test_bad_values_fall_back_one_by_one(
    app_paths: AppPaths, caplog: pytest.LogCaptureFixture
) -> None:
    path = app_paths.settings_file
    path.write_text(
        json.dumps({"version": 1, "temperature": 9, "default_model": "qwen3", "colour": "red"})
    )
    with caplog.at_level(logging.WARNING):
        settings = load_settings(path)
    assert settings.default_model == "qwen3" and settings.temperature == Settings().temperature
    assert "'temperature' has an invalid value" in caplog.text
    assert "unknown setting 'colour'" in caplog.text


def test_a_version_0_file_migrates(app_paths: AppPaths, tmp_path: os.PathLike[str]) -> None:
    path = app_paths.settings_file
    home = str(tmp_path)
    path.write_text(
        json.dumps(
            {
                "enabled": False,
                "allowedDirs": [home],
                "blockedDirs": [os.path.join(home, "private")],
                "runCommandEnabled": True,
                "confirmationMode": "write-only",
                "enabledTools": ["read_file", "list_directory"],
                "default_model": "llama3",
            }
        )
    )
    settings = load_settings(path)
    assert settings.version == 1
    assert settings.tools_enabled is False and settings.run_command_enabled is True
    assert settings.allowed_dirs == [home]
    assert settings.blocked_dirs == [os.path.join(home, "private")]
    assert settings.confirmation_mode == "delete_only"
    assert "read_file" not in settings.disabled_tools
    assert {"write_file", "delete_file", "run_command"} <= set(settings.disabled_tools)
    assert settings.default_model == "llama3"
    save_settings(settings, path)
    assert json.loads(path.read_text())["version"] == 1


@pytest.mark.parametrize("saves", [1, 7, 30, 120])
def test_a_kill_mid_save_leaves_a_loadable_file(
    app_paths: AppPaths, caplog: pytest.LogCaptureFixture, saves: int
) -> None:
    path = app_paths.settings_file
    child = Child(path, "settings")
    try:
        child.wait_for(lambda line: line == f"saved {saves}")
        child.kill()
    finally:
        child.close()
    with caplog.at_level(logging.WARNING):
        settings = load_settings(path)
    assert caplog.text == ""
    assert settings.default_model in ("first", "second")


def test_temp_files_left_by_a_killed_save_are_cleaned_later(app_paths: AppPaths) -> None:
    path = app_paths.settings_file
    stale = path.parent / f".{path.name}-abandoned.tmp"
    fresh = path.parent / f".{path.name}-in-progress.tmp"
    stale.write_text("{")
    fresh.write_text("{")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    save_settings(Settings(), path)
    assert not stale.exists() and fresh.exists()


def test_a_settings_folder_that_cannot_be_written_is_one_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="Cannot save the settings to") as caught:
        save_settings(Settings(), blocker / "settings.json")
    assert "\n" not in str(caught.value)
    for code, words in ((errno.ENOSPC, "the disk is full"), (errno.EROFS, "read-only disk")):
        assert words in save_problem(Path("s.json"), OSError(code, os.strerror(code)))


@pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0 or not shutil.which("unshare"),
    reason="needs root and mount namespaces",
)
def test_a_read_only_settings_folder_keeps_the_old_file(app_paths: AppPaths) -> None:
    save_settings(Settings(max_rounds=7), app_paths.settings_file)
    before = app_paths.settings_file.read_bytes()
    folder = str(app_paths.config_dir)
    script = (
        'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$1" -c '
        '"import sys; from pathlib import Path; from tray_app.store.settings import *\n'
        "try:\n    save_settings(Settings(max_rounds=3), Path(sys.argv[1]))\n"
        'except Exception as e:\n    print(type(e).__name__, e)" "$2"'
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, folder, sys.executable, str(app_paths.settings_file)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.stdout.startswith("StoreError Cannot save the settings"), done.stderr
    assert "read-only disk" in done.stdout
    assert app_paths.settings_file.read_bytes() == before
