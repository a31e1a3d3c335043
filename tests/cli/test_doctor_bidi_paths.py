"""An OS error about a path holding a direction override, as ``metona-tray doctor`` says it:
the path reads the same everywhere in the reason, written out as ``⟨U+202E⟩`` like every other
name the terminal prints, never Python's escape ``\\u202e`` (``str(OSError)`` puts the name in
``repr``) and never the raw character. Run as a user runs it, in English and Chinese."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.cli import cli_env, run_cli

#: A folder name no file system takes (over 255 bytes): every stat under it fails with
#: ENAMETOOLONG, so the OS error names the path.
LONG_NAME = "例\u202e" + "x" * 300
SHOWN = "例⟨U+202E⟩xxxx"


def doctor(tmp_path: Path, lang: str, **extra: str) -> tuple[str, str]:
    env = cli_env(tmp_path / "metona", tmp_path / "home", lang=lang)
    env.pop("PYTHON_KEYRING_BACKEND", None)
    env.update(extra)
    command = [sys.executable, "-m", "tray_app", "doctor", "--endpoint", "http://127.0.0.1:9"]
    result = run_cli(command, env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout, result.stderr


ZH = ("       keyring 库说：“[Errno 36] ", "[信息] 桌面 登录时启动：未知（“[Errno 36] ")
EN = (
    "       keyring says: \u201c[Errno 36] ",
    "[info] desktop start_at_login: unknown ([Errno 36] ",
)


@pytest.mark.parametrize(("lang", "keyring", "login"), [("zh_CN.UTF-8", *ZH), ("en_US.UTF-8", *EN)])
def test_a_config_folder_no_one_can_read_is_said_with_its_name_written_out(
    tmp_path: Path, lang: str, keyring: str, login: str
) -> None:
    """keyring reads its config under XDG_CONFIG_HOME and so does start at login: both fail
    on the same path, and doctor says so (it used to end in keyring's traceback)."""
    config = tmp_path / LONG_NAME
    out, err = doctor(tmp_path, lang, XDG_CONFIG_HOME=str(config))
    lines = out.splitlines()
    said = [line for line in lines if line.startswith((keyring, login))]
    assert len(said) == 2, out
    for line in said:
        assert f": '{tmp_path}/{SHOWN}" in line, line
    for text in (out, err):
        assert "\\u202e" not in text and "\u202e" not in text, text
    assert SHOWN in err  # the log line on stderr (a terminal command keeps no log) too


def test_a_settings_file_under_a_file_is_said_with_its_name_written_out(tmp_path: Path) -> None:
    """METONA_HOME under a file: the settings cannot be read; the warning on stderr names the
    path the same way twice."""
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    home = tmp_path / "afile" / "例\u202eh"
    env = cli_env(home, tmp_path / "home", lang="zh_CN.UTF-8")
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    command = [sys.executable, "-m", "tray_app", "doctor", "--endpoint", "http://127.0.0.1:9"]
    result = run_cli(command, env)
    assert "Traceback" not in result.stderr, result.stderr
    warning = next(line for line in result.stderr.splitlines() if "settings file" in line)
    path = f"{tmp_path}/afile/例⟨U+202E⟩h/config/settings.json"
    assert f"settings file {path} is unusable ([Errno 20] Not a directory: '{path}')" in warning
    assert "\\u202e" not in result.stderr and "\u202e" not in result.stderr + result.stdout
