"""``metona-tray --self-test`` from source, as a subprocess.

A whole checkout passes, headless and (under Xvfb) with the popup's real window; a checkout
with a page file, a locale string or ``rg`` missing fails and names what is missing. The
user's own folders are never touched, and a temp folder with CJK, emoji and spaces works.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tray_app.self_test import files
from tray_app.self_test.fake_model import ANSWER_MISSING, ANSWER_OK, MARKER_FILE, FakeModel
from tray_app.self_test.text import WITHOUT_CATALOGUE

ROOT = Path(__file__).resolve().parents[2]
CHECKS = [
    "modules", "dependencies", "desktop libraries", "ripgrep", "web page", "settings and store",
    "agent turn", "popup process",
]  # fmt: skip


def run_self_test(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    base = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    base.update(METONA_HOME=str(home), PYTHONPATH=str(ROOT), LC_ALL="C.UTF-8")
    base.update(env)
    return subprocess.run(
        [sys.executable, "-m", "tray_app", "--self-test"],
        cwd=tmp_path, env=base, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


def lines(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """``{check name: status}`` from the report."""
    found = {}
    for line in result.stdout.splitlines():
        for name in [*CHECKS, "popup window"]:
            if line[5:].startswith(name + " ") or line[5:].strip() == name:
                found[name] = line[:4].strip()
    return found


def test_a_whole_checkout_passes_headless_in_a_hard_temp_folder(tmp_path: Path) -> None:
    hard = tmp_path / "临时 folder ✓ 🧪"
    hard.mkdir()
    result = run_self_test(tmp_path, TMPDIR=str(hard))
    assert result.returncode == 0, result.stdout + result.stderr
    assert lines(result) == {**dict.fromkeys(CHECKS, "ok"), "popup window": "skip"}
    assert result.stdout.rstrip().endswith("metona-tray self-test: whole")
    assert not (tmp_path / "home").exists(), "the user's folders were touched"
    assert list(hard.iterdir()) == [], "the temporary folder was left behind"


def test_the_report_speaks_the_users_language_and_leaves_the_settings_alone(
    tmp_path: Path,
) -> None:
    settings = tmp_path / "home" / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"language": "zh-CN", "default_model": "我的模型"}', encoding="utf-8")
    before = settings.read_bytes()
    web = copy_web(tmp_path)
    (web / "js" / "chat" / "toolcard.js").unlink()  # the page is broken, its words are not
    result = run_self_test(tmp_path, METONA_WEB_DIR=str(web))
    assert result.returncode == 1
    assert "FAIL 网页界面" in result.stdout and "ok   智能体回合" in result.stdout
    assert "skip 弹窗窗口" in result.stdout and "没有图形显示" in result.stdout
    assert result.stdout.rstrip().endswith("metona-tray 自检：不完整，1 项检查失败")
    assert settings.read_bytes() == before
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def copy_web(tmp_path: Path) -> Path:
    web = tmp_path / "web"
    shutil.copytree(ROOT / "web", web)
    return web


def test_a_missing_script_is_named(tmp_path: Path) -> None:
    web = copy_web(tmp_path)
    (web / "js" / "chat" / "toolcard.js").unlink()  # imported by another module, not by index.html
    result = run_self_test(tmp_path, METONA_WEB_DIR=str(web))
    assert result.returncode == 1
    report = lines(result)
    assert report["web page"] == "FAIL" and report["agent turn"] == "ok"
    assert "web files missing: js/chat/toolcard.js" in result.stdout
    assert "broken: 1 check(s) failed" in result.stdout


def test_a_locale_missing_a_string_is_named(tmp_path: Path) -> None:
    web = copy_web(tmp_path)
    path = web / "locales" / "zh-CN.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop(next(iter(data)))
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = run_self_test(tmp_path, METONA_WEB_DIR=str(web))
    assert result.returncode == 1
    assert "locales differ" in result.stdout


def test_no_page_at_all_is_named(tmp_path: Path) -> None:
    settings = tmp_path / "home" / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"language": "zh-CN"}', encoding="utf-8")
    result = run_self_test(tmp_path, METONA_WEB_DIR=str(tmp_path / "nowhere"))
    assert result.returncode == 1
    # without its catalogue the report is in English, the language the code is written in
    assert "FAIL web page" in result.stdout
    assert result.stdout.rstrip().endswith("metona-tray self-test: broken: 1 check(s) failed")
    english = json.loads((ROOT / "web" / "locales" / "en.json").read_text(encoding="utf-8"))
    assert {f"self_test.{k}": v for k, v in WITHOUT_CATALOGUE.items()}.items() <= english.items()
    assert f"web page not found at {tmp_path / 'nowhere' / 'index.html'}" in result.stdout


def test_missing_rg_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from tray_app.tools.search import search_rg

    monkeypatch.setattr(search_rg, "rg_binary", lambda: None)
    with pytest.raises(files.Missing, match=r"rg \(ripgrep\) not found"):
        files.check_ripgrep()


def test_the_fake_model_answers_from_the_tool_result(tmp_path: Path) -> None:
    fake = FakeModel(str(tmp_path))
    first = fake.reply_to([{"role": "user", "content": "go"}])
    assert first[0]["tool_calls"][0]["function"]["name"] == "list_directory"
    seen = fake.reply_to([{"role": "tool", "content": f"[file] {MARKER_FILE}"}])
    assert "".join(m["content"] for m in seen) == ANSWER_OK
    blind = fake.reply_to([{"role": "tool", "content": "[file] other.txt"}])
    assert "".join(m["content"] for m in blind) == ANSWER_MISSING


@pytest.fixture
def xvfb() -> Iterator[str]:
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is missing (scripts/install-test-deps.sh installs it as root)")
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()  # Xvfb writes it once it accepts connections
    try:
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.gui
@pytest.mark.timeout(240)
def test_with_a_display_the_popup_window_loads_the_page(tmp_path: Path, xvfb: str) -> None:
    result = run_self_test(tmp_path, DISPLAY=xvfb)
    assert result.returncode == 0, result.stdout + result.stderr
    assert lines(result) == {**dict.fromkeys(CHECKS, "ok"), "popup window": "ok"}
    assert "loaded the page and it booted" in result.stdout


def test_the_popup_log_tail_is_bounded_and_survives_bad_bytes(tmp_path: Path) -> None:
    from tray_app.self_test.popup_check import log_tail

    log = tmp_path / "popup.log"
    assert log_tail(log) == "(no log)"
    log.write_bytes(
        b"x" * 100_000 + b"\nfirst\n\xff\xfe bad\nWebKit: \xe5\xb4\xa9\xe6\xba\x83 crash\n"
    )
    tail = log_tail(log, lines=2)
    assert tail == "\ufffd\ufffd bad | WebKit: 崩溃 crash"
