"""Settings: defaults, per-field fallback with a warning, migration of the v0 shape."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tray_app.base.paths import AppPaths
from tray_app.store.settings import Settings, load_settings, save_settings


def test_defaults_are_those_of_the_spec() -> None:
    s = Settings()
    assert s.endpoint == "http://127.0.0.1:11434"
    assert s.num_ctx == 24576 and s.temperature == 0.7 and s.max_rounds == 10
    assert s.confirmation_mode == "all_writes"
    assert s.confirmation_timeout == 300
    assert s.run_command_enabled is False and s.sandbox_enabled is False
    assert s.tools_enabled is True
    assert len(s.allowed_dirs) == 2  # home and the temp folder


def test_invalid_and_unknown_values_fall_back_one_by_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "temperature": 9,
                "num_ctx": 8192,
                "confirmation_mode": "yolo",
                "endpoint": "ftp://x",
                "mystery": True,
            }
        )
    )
    with caplog.at_level(logging.WARNING):
        s = load_settings(path)
    assert s.num_ctx == 8192  # the valid value is kept
    assert s.temperature == 0.7 and s.confirmation_mode == "all_writes"
    assert s.endpoint == "http://127.0.0.1:11434"
    text = caplog.text
    for name in ("temperature", "confirmation_mode", "endpoint", "mystery"):
        assert name in text


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", ""])
def test_a_corrupt_file_gives_defaults_with_a_warning(
    tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content)
    with caplog.at_level(logging.WARNING):
        assert load_settings(path) == Settings()
    assert "settings" in caplog.text


def test_the_design_documents_tool_config_migrates(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "enabled": False,
                "enabledTools": ["read_file", "list_directory"],
                "allowedDirs": [str(tmp_path)],
                "confirmationMode": "write-only",
                "runCommandEnabled": True,
            }
        )
    )
    s = load_settings(path)
    assert s.version == 1
    assert s.tools_enabled is False
    assert s.allowed_dirs == [str(tmp_path)]
    assert s.confirmation_mode == "delete_only"
    assert s.run_command_enabled is True
    assert "write_file" in s.disabled_tools and "read_file" not in s.disabled_tools


def test_save_then_load_round_trips_and_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "settings.json"
    s = Settings(num_ctx=4096, language="zh-CN", allowed_dirs=[str(tmp_path)])
    save_settings(s, path)
    assert load_settings(path) == s
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


def test_metona_home_puts_every_folder_under_it(metona_home: Path) -> None:
    paths = AppPaths.from_env()
    for folder in paths.protected_dirs():
        assert folder.is_relative_to(metona_home)
    assert paths.settings_file.is_relative_to(metona_home)


def test_a_turn_reads_the_settings_themselves_not_a_copy_of_their_defaults(
    tmp_path: Path,
) -> None:
    from dataclasses import fields

    from tray_app.agent.loop import TurnConfig
    from tray_app.core.turns import TurnFactory

    assert {f.name for f in fields(TurnConfig)} == {"model", "settings", "language"}
    settings = Settings(keep_alive="", max_rounds=3, language="zh-CN")
    config = TurnFactory(AppPaths.under(tmp_path)).config(settings, "qwen3:8b")
    assert config.settings is settings and config.language == "zh-CN"
    assert config.keep_alive is None  # "" means the server's own default
    assert TurnConfig(model="m").settings == Settings()
