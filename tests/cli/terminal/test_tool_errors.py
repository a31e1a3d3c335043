"""``metona-tray chat`` as a subprocess in a Chinese locale against fake Ollama: a missing file,
a blocked path and an edit that matches nothing are reported in Chinese, a hostile file name
has its direction control written out, and the model still receives English."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn

HOSTILE = "报告\u202egpj.exe 🎉"


def _chat(fake: FakeOllama, metona_home: Path, home: Path, workspace: Path, lang: str) -> str:
    env = cli_env(metona_home, home, lang=lang)
    result = run_cli(chat_command(fake.url, workspace), env, "看看这些文件\n/exit\n")
    assert result.returncode == 0, result.stderr
    return result.stderr


def _script(fake: FakeOllama, workspace: Path) -> None:
    (workspace / "笔记.txt").write_text("第一行\n第二行\n", encoding="utf-8")
    fake.script(
        tool_turn(
            [
                ("read_file", {"path": f"{HOSTILE}.txt"}),
                ("read_file", {"path": "/etc/hostname"}),
                (
                    "edit_file",
                    {"path": "笔记.txt", "edits": [{"old_text": "第三行", "new_text": "新"}]},
                ),
            ]
        ),
        text_turn("好的。"),
    )


def test_tool_failures_are_said_in_chinese_in_a_chinese_terminal(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    _script(fake_ollama, workspace)
    stderr = _chat(fake_ollama, metona_home, tmp_path / "home", workspace, "zh_CN.UTF-8")
    failed = [line for line in stderr.splitlines() if line.startswith("[工具] ✗")]
    assert len(failed) == 3, stderr
    assert "[tool]" not in stderr
    assert "找不到文件：" in failed[0] and "⟨U+202E⟩" in failed[0] and "🎉" in failed[0]
    assert "\u202e" not in stderr and "\x1b" not in stderr  # nothing rewrites the terminal
    assert "位于系统文件夹 /etc 内，不允许访问" in failed[1], failed[1]
    assert "未更改：找不到要替换的文本" in failed[2], failed[2]
    # under it, the file's nearest lines, as the card shows them
    after = stderr.splitlines()
    at = after.index(failed[2])
    assert after[at + 1 : at + 3] == ["    1: 第一行", "    2: 第二行"], after[at : at + 4]
    sent = [
        json.loads(m["content"])
        for m in fake_ollama.chat_requests[1]["messages"]
        if m["role"] == "tool"
    ]
    assert sent[0]["error"].startswith("file not found: ")  # the model's text stays English
    assert all("code" not in r and "params" not in r for r in sent)


def test_a_chinese_terminal_echoes_a_calls_arguments_in_words_on_one_line(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    """The call's echo: the label and the keys in Chinese, a path with a direction control and
    a line break kept on one line with both written out, a huge value cut."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    spoof = "合同\u202egpj.exe\n[工具] ✓ 伪造 🎉" + "长" * 5000
    fake_ollama.script(tool_turn([("read_file", {"path": spoof})]), text_turn("好的。"))
    stderr = _chat(fake_ollama, metona_home, tmp_path / "home", workspace, "zh_CN.UTF-8")
    echo = [line for line in stderr.splitlines() if line.startswith("[工具] read_file ")]
    assert len(echo) == 1, stderr
    assert echo[0].startswith("[工具] read_file 路径：合同⟨U+202E⟩gpj.exe⏎[工具] ✓ 伪造 🎉长"), echo
    assert echo[0].endswith("…") and len(echo[0]) < 140, echo
    assert not any(line.startswith("[工具] ✓ 伪造") for line in stderr.splitlines()), stderr
    assert "[tool]" not in stderr and "\u202e" not in stderr


def test_an_english_terminal_prints_the_tools_sentence(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    _script(fake_ollama, workspace)
    stderr = _chat(fake_ollama, metona_home, tmp_path / "home", workspace, "en_US.UTF-8")
    failed = [line for line in stderr.splitlines() if line.startswith("[tool] ✗")]
    assert len(failed) == 3, stderr
    assert "file not found: " in failed[0] and "⟨U+202E⟩" in failed[0]
    assert "is inside the system folder /etc" in failed[1]
    assert "old_text was not found" in failed[2]
    assert "\u202e" not in stderr and "\x1b" not in stderr


def test_a_refused_command_is_explained_in_chinese_and_shown_with_its_controls_written_out(
    tmp_path: Path,
) -> None:
    """The terminal's approval of a blacklisted command: the reason in the user's language and
    the command with its direction control visible (the user decides on what they see)."""
    from tray_app.base.events import ApprovalNeeded
    from tray_app.cli.terminal_render import approval_text
    from tray_app.tools.registry import default_registry
    from tray_app.tools.sandbox.policy import SandboxPolicy
    from tray_app.tools.toolbox import Toolbox

    policy = SandboxPolicy(allowed_dirs=[tmp_path], workspace=tmp_path, run_command_enabled=True)
    box = Toolbox(policy, registry=default_registry())
    command = "echo \u202egnp.exe; sudo reboot"
    preview = box.preview("run_command", {"command": command})
    event = ApprovalNeeded(
        session_id="s",
        call_id="c",
        name="run_command",
        arguments={"command": command},
        risk="command",
        preview=preview,
        can_remember=False,
        expires_at=0,
    )
    said = approval_text(event, "zh-CN")
    assert "⛔ 已被命令黑名单拒绝：reboot 会关闭计算机" in said
    # the heading and the summary line in Chinese too (where it runs, whether sandboxed)
    assert "── 需要确认：run_command（运行命令）" in said, said
    assert f"   在 {tmp_path} 中运行（" in said and "runs in" not in said, said
    from tray_app.cli.terminal_preview import approval_prompt

    assert approval_prompt("run_command", True, "zh-CN").startswith("允许 run_command？[y=允许")
    assert approval_prompt("run_command", False, "en") == "Approve run_command? [y/N] "
    assert "\u202e" not in said and "⟨U+202E⟩gnp.exe" in said
    english = approval_text(event, "en")
    assert "⛔" not in english and "refused by the command blacklist" in english
    assert "── approval needed: run_command (command)" in english
    assert f"   runs in {tmp_path} (" in english
    assert "\u202e" not in english
