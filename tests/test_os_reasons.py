"""An OS error's reason in the user's language by its errno: the page's and the terminal's
words agree, and the real CLI in a Chinese locale says why it cannot write an export in
Chinese instead of quoting the OS's English."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama
from tray_app.os_reasons import ERRNO_CODES, OS_REASON, os_params, os_reason_text
from tray_app.undo_reasons import reason_text

LOCALES = Path(__file__).resolve().parents[1] / "web" / "locales"


@pytest.mark.parametrize(("language", "file"), [("en", "en.json"), ("zh-CN", "zh-CN.json")])
def test_the_terminals_words_are_the_pages(language: str, file: str) -> None:
    page = json.loads((LOCALES / file).read_text(encoding="utf-8"))
    said = {k.removeprefix("os_reason."): v for k, v in page.items() if k.startswith("os_reason.")}
    assert said == OS_REASON[language]
    assert set(ERRNO_CODES.values()) | {"other"} == set(said)


def test_a_known_errno_is_said_in_words_and_an_unknown_one_quoted() -> None:
    denied = PermissionError(errno.EACCES, "Permission denied", "/d/撤销\u202e")
    assert os_params(denied) == {"detail": "Permission denied", "os": "permission_denied"}
    assert os_reason_text(os_params(denied), "zh-CN") == "没有权限"
    broken = OSError(errno.EIO, "Input/output error")
    assert os_params(broken) == {"detail": "Input/output error"}
    assert os_reason_text(os_params(broken), "zh-CN") == "“Input/output error”"
    assert os_reason_text(os_params(broken), "en") == "Input/output error"
    params = {"folder": "/d/撤销", **os_params(denied)}
    said = reason_text("journal_not_writable", params, "english", "zh-CN")
    assert said == "撤销记录所在的文件夹 /d/撤销 无法写入（没有权限）"


def _cli(fake: FakeOllama, home: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(home), NO_COLOR="1", LANG="zh_CN.UTF-8")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        env.pop(name, None)
    home.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "tray_app", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=90,
        env=env,
    )


def test_a_chinese_terminal_says_why_an_export_cannot_be_written(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    """``/export`` onto a folder (EISDIR) and into a path through a file (ENOTDIR)."""
    folder = tmp_path / "导出 \u202efdp.md 📁"
    folder.mkdir()
    blocker = tmp_path / "不是文件夹.txt"
    blocker.write_text("x", encoding="utf-8")
    stdin = f"/export {folder}\n/export {blocker}/chat.md\n/exit\n"
    args = ("chat", "--model", "qwen3:8b", "--endpoint", fake_ollama.url)
    result = _cli(fake_ollama, tmp_path / "home", stdin, *args)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "无法写入" in line]
    assert len(lines) == 2, result.stderr
    assert lines[0].endswith("⟨U+202E⟩fdp.md 📁（它是文件夹）"), lines[0]
    assert lines[1].endswith("chat.md（路径中的某一部分不是文件夹）"), lines[1]
    assert "Is a directory" not in result.stderr and "Not a directory" not in result.stderr
    assert "\u202e" not in result.stderr
