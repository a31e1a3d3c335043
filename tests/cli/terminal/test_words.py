"""``metona-tray chat`` as a subprocess in a Chinese locale against fake Ollama: an approval's
outcome, a call denied for want of a terminal to ask, a tool's status and a result's counts are
said in Chinese, not as English words or ``key=value``; an English terminal keeps them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn

NEW = "新笔记 📝\u202etxt.md"


def _chat(fake: FakeOllama, metona_home: Path, home: Path, workspace: Path, lang: str) -> str:
    env = cli_env(metona_home, home, lang=lang)
    (workspace / "旧.txt").write_text("第一行 🙂\n第二行\n", encoding="utf-8")
    fake.script(
        tool_turn(
            [
                ("write_file", {"path": NEW, "content": "你好 ✨\n"}),
                ("search_files", {"path": ".", "query": "第一行"}),
                ("delete_file", {"path": "旧.txt"}),
            ]
        ),
        text_turn("好的。"),
    )
    typed = "改一下文件\n/undo\n/export 导出 📄.md\n/exit\n"
    result = run_cli(chat_command(fake.url, workspace, "--yes"), env, typed, cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "旧.txt").exists()  # denied: no terminal to ask
    assert not (workspace / NEW).exists()  # /undo took the write back
    assert "改一下文件" in (workspace / "导出 📄.md").read_text(encoding="utf-8")
    return result.stderr


@pytest.mark.parametrize(
    ("lang", "said", "not_said"),
    [
        (
            "zh_CN.UTF-8",
            [
                "[确认] 已批准（终端）",
                "write_file 成功",
                "已写入 11 字节",
                "search_files 成功",
                "共 1 处匹配",
                "已拒绝 delete_file：没有可以询问的终端（写入请加 --yes，全部批准请加 --yes-all）",
                "Metona Tray 对话。Ctrl+C 停止回答",
                "已撤销：",
                "新笔记 📝⟨U+202E⟩txt.md",
                "已导出到 ",
            ],
            [
                *("approved", "(terminal)", "bytesWritten=", "total_matches=", "no terminal"),
                *("success", "Ctrl+C stops", "exported to", '"action"'),
            ],
        ),
        (
            "en_US.UTF-8",
            [
                "[approval] approved (terminal)",
                "write_file success",
                "bytesWritten=11",
                "total_matches=1",
                "denied delete_file: no terminal to ask for approval (use --yes for writes",
                "Metona Tray chat. Ctrl+C stops an answer",
                '"success": true',
                "exported to ",
            ],
            ["已批准", "已写入", "没有可以询问"],
        ),
    ],
)
def test_the_terminals_short_lines_follow_its_language(
    fake_ollama: FakeOllama,
    metona_home: Path,
    tmp_path: Path,
    lang: str,
    said: list[str],
    not_said: list[str],
) -> None:
    workspace = tmp_path / "work 工作"
    workspace.mkdir()
    stderr = _chat(fake_ollama, metona_home, tmp_path / "home", workspace, lang)
    for text in said:
        assert text in stderr, (text, stderr)
    for text in not_said:
        assert text not in stderr, (text, stderr)
    assert "\u202e" not in stderr


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh_CN.UTF-8", "metona-tray export: 没有保存的对话“报告⟨U+202E⟩🎉”"),
        ("en_US.UTF-8", "metona-tray export: no stored chat '报告⟨U+202E⟩🎉'"),
    ],
)
def test_a_missing_chat_is_said_in_the_terminals_language(
    metona_home: Path, tmp_path: Path, lang: str, said: str
) -> None:
    env = cli_env(metona_home, tmp_path, lang=lang)
    done = run_cli([sys.executable, "-m", "tray_app", "export", "报告\u202e🎉"], env)
    assert done.returncode == 2
    assert done.stderr.strip() == said, done.stderr
