"""The last English a Chinese terminal met: a refused chat option and an unreadable data folder
say so in the terminal's language, with what the user or the system gave written out."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.cli import cli_env, run_cli

HOSTILE = "例子\u202egpj.exe👋"
SHOWN = "例子⟨U+202E⟩gpj.exe👋"


def metona(*args: str) -> list[str]:
    return [sys.executable, "-m", "tray_app", *args]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh_CN.UTF-8",
            f"--endpoint：服务地址必须以 http:// 或 https:// 开头，而不是“ftp://{SHOWN}”",
        ),
        (
            "en_US.UTF-8",
            f"--endpoint: the endpoint must start with http:// or https://, not “ftp://{SHOWN}”",
        ),
    ],
)
def test_a_refused_endpoint_is_said_in_the_terminals_language(
    tmp_path: Path, lang: str, expected: str
) -> None:
    env = cli_env(tmp_path / "metona", tmp_path / "home", lang=lang)
    result = run_cli(metona("chat", "--endpoint", f"ftp://{HOSTILE}", "hi"), env)
    assert result.returncode == 2, result.stderr
    assert expected in result.stderr
    assert "\u202e" not in result.stderr
    assert "pydantic" not in result.stderr


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("zh_CN.UTF-8", "metona-tray changes: 无法读取撤销日志（“无法创建撤销记录文件夹"),
        ("en_US.UTF-8", "metona-tray changes: cannot read the undo journal: the undo journal's"),
    ],
)
def test_an_unusable_data_folder_is_said_in_the_terminals_language(
    tmp_path: Path, lang: str, expected: str
) -> None:
    """The data folder's name is a file: ``changes`` says why on one line, the name written
    out (a bidi control would otherwise reorder the rest of the line)."""
    home = tmp_path / f"数据{HOSTILE}"
    home.write_text("not a folder")
    result = run_cli(metona("changes"), cli_env(home, tmp_path / "home", lang=lang))
    assert result.returncode == 1, result.stderr
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith(expected), line
    assert f"数据{SHOWN}" in line and "\u202e" not in line
    assert "Traceback" not in result.stderr
