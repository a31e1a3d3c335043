"""An OS error's reason in the user's language by its errno: the page's and the terminal's
words agree, and the real CLI in a Chinese locale says why it cannot write an export in
Chinese instead of quoting the OS's English."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.cli import cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tray_app.os_reasons import ERRNO_CODES, os_error_text, os_params, os_reason_text
from tray_app.undo_reasons import reason_text
from tray_app.web_files import locale_texts

LOCALES = Path(__file__).resolve().parents[2] / "web" / "locales"


@pytest.mark.parametrize(("language", "file"), [("en", "en.json"), ("zh-CN", "zh-CN.json")])
def test_the_terminals_words_are_the_pages(language: str, file: str) -> None:
    page = json.loads((LOCALES / file).read_text(encoding="utf-8"))
    said = {k.removeprefix("os_reason."): v for k, v in page.items() if k.startswith("os_reason.")}
    assert set(ERRNO_CODES.values()) | {"other"} == set(said)
    for code in ERRNO_CODES.values():
        assert os_reason_text({"os": code, "detail": "OS words"}, language) == said[code]
    other = os_reason_text({"os": "other", "detail": "I/O 🙂"}, language)
    assert other == said["other"].format(detail="I/O 🙂") and "I/O 🙂" in other


@pytest.mark.usefixtures("fresh_locales")
def test_an_edit_of_the_locale_is_what_the_terminal_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The locale file is the one copy: an edit there is what the terminal and the tray say;
    a locale that cannot be read leaves the OS's own text."""
    web = tmp_path / "web"
    (web / "locales").mkdir(parents=True)
    page = json.loads((LOCALES / "zh-CN.json").read_text(encoding="utf-8"))
    page["os_reason.permission_denied"] = "权限不够 🔒"
    page["os_reason.other"] = "系统说：{detail}"
    (web / "locales" / "zh-CN.json").write_text(json.dumps(page), encoding="utf-8")
    monkeypatch.setenv("METONA_WEB_DIR", str(web))
    denied = os_params(PermissionError(errno.EACCES, "Permission denied"))
    broken = os_params(OSError(errno.EIO, "Input/output error {os}"))
    assert os_reason_text(denied, "zh-CN") == "权限不够 🔒"
    assert os_reason_text(broken, "zh-CN") == "系统说：Input/output error {os}"
    assert os_reason_text(denied, "en") == "Permission denied"  # no en.json there
    (web / "locales" / "zh-CN.json").write_text('{"os_reason.other": "{oops}"}', encoding="utf-8")
    locale_texts.cache_clear()
    assert os_reason_text(broken, "zh-CN") == "Input/output error {os}"


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


def _cli(metona_home: Path, home: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env(metona_home, home, lang="zh_CN.UTF-8")
    return run_cli([sys.executable, "-m", "tray_app", *args], env, stdin)


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
    result = _cli(metona_home, tmp_path / "home", stdin, *args)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "无法写入" in line]
    assert len(lines) == 2, result.stderr
    assert lines[0].endswith("⟨U+202E⟩fdp.md 📁（它是文件夹）"), lines[0]
    assert lines[1].endswith("chat.md（路径中的某一部分不是文件夹）"), lines[1]
    assert "Is a directory" not in result.stderr and "Not a directory" not in result.stderr
    assert "\u202e" not in result.stderr


def test_an_os_errors_text_keeps_its_paths_as_they_are() -> None:
    """Python's ``str(OSError)`` writes a name's U+202E as ``\\u202e``; ours hands each name to
    the caller's ``shown`` (the terminal's ``⟨U+202E⟩``), both names of a two-path error."""
    from tray_app.i18n import written_out

    one = FileNotFoundError(errno.ENOENT, "No such file or directory", "/tmp/例\u202egpj.exe")
    assert "\\u202e" in str(one)
    assert os_error_text(one) == "[Errno 2] No such file or directory: '/tmp/例\u202egpj.exe'"
    two = OSError(errno.EXDEV, "Invalid cross-device link", "/a\u202e", None, "/b 👋")
    assert os_error_text(two, written_out) == (
        "[Errno 18] Invalid cross-device link: '/a⟨U+202E⟩' -> '/b 👋'"
    )
    assert os_error_text(ValueError("not an OS error")) == "not an OS error"
    assert os_error_text(OSError("no errno")) == "no errno"
