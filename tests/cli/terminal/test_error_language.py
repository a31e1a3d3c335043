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


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh_CN.UTF-8",
            f"metona-tray undo: 无法打开应用的数据（“the database {SHOWN} is locked”）",
        ),
        (
            "en_US.UTF-8",
            f"metona-tray undo: cannot open the app's data: the database {SHOWN} is locked",
        ),
    ],
)
def test_data_that_cannot_be_opened_is_said_in_the_terminals_language(
    monkeypatch: pytest.MonkeyPatch, lang: str, expected: str
) -> None:
    """No folder layout makes the app's start fail outright (it opens read-only or falls back),
    so the OS's refusal is raised where the command starts the app."""
    import io

    from tray_app.cli import changes_cli
    from tray_app.core import bootstrap

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError(f"the database {HOSTILE} is locked")

    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang)
    monkeypatch.setattr(bootstrap, "start_app", refuse)
    err = io.StringIO()
    assert changes_cli._start("undo", err) is None
    assert err.getvalue() == expected + "\n"
