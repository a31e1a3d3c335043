"""``metona-tray chat`` with the tools declared in their own modules, as a subprocess against fake
Ollama: an edit_file and a move_file approved with --yes, each undone with /undo byte for byte; and
a persistence location that even --yes-all does not approve."""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn


def _chat(
    fake: FakeOllama, metona_home: Path, tmp_path: Path, workspace: Path, stdin: str, *flags: str
) -> Any:
    env = cli_env(metona_home, tmp_path / "home")
    return run_cli(chat_command(fake.url, workspace, *flags), env, stdin)


def _undo_lines(stderr: str) -> list[dict[str, Any]]:
    """The JSON lines /undo prints (after the "> " prompt)."""
    found = [
        line[line.index('{"success"') :] for line in stderr.splitlines() if '{"success"' in line
    ]
    return [json.loads(line) for line in found]


def test_edit_file_then_undo_in_the_terminal(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    target = workspace / "日志 📓.txt"
    original = codecs.BOM_UTF16_LE + "".join(f"行 {n}\r\n" for n in range(2000)).encode("utf-16-le")
    target.write_bytes(original)
    fake_ollama.script(
        tool_turn(
            [
                (
                    "edit_file",
                    {
                        "path": target.name,
                        "edits": [{"old_text": "行 1234", "new_text": "行 一二三四 ✓"}],
                    },
                )
            ]
        ),
        text_turn("Fixed line 1235."),
    )
    result = _chat(fake_ollama, metona_home, tmp_path, workspace, "fix it\n/undo\n/exit\n", "--yes")
    assert result.returncode == 0, result.stderr
    assert "Fixed line 1235." in result.stdout
    assert "[tool] ✓ edit_file success" in result.stderr and "applied 1 edit(s)" in result.stderr
    assert "+行 一二三四 ✓" in result.stderr
    sent = json.loads(
        next(m for m in fake_ollama.chat_requests[1]["messages"] if m["role"] == "tool")["content"]
    )
    assert sent["success"] is True and sent["format"] == "utf-16le, BOM, CRLF"
    (undone,) = _undo_lines(result.stderr)
    assert undone["success"] is True and undone["tool"] == "edit_file"
    assert target.read_bytes() == original


def test_move_file_then_undo_in_the_terminal(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "模块.py").write_text("print('模块')\n")
    fake_ollama.script(
        tool_turn([("move_file", {"source": "src", "destination": "lib/源码"})]),
        text_turn("Moved the folder."),
    )
    result = _chat(
        fake_ollama, metona_home, tmp_path, workspace, "move src\n/undo\n/exit\n", "--yes"
    )
    assert result.returncode == 0, result.stderr
    assert f"moved to {workspace / 'lib' / '源码'}" in result.stderr
    (undone,) = _undo_lines(result.stderr)
    assert undone["success"] is True and undone["action"] == "moved back"
    assert (workspace / "src" / "模块.py").read_text() == "print('模块')\n"
    assert not (workspace / "lib").exists()  # the folder the move created is gone too


def test_a_persistence_location_is_not_approved_by_yes_all(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    fake_ollama.script(
        tool_turn([("write_file", {"path": ".vscode/tasks.json", "content": "{}\n"})]),
        text_turn("It was denied."),
    )
    result = _chat(
        fake_ollama, metona_home, tmp_path, workspace, "add a task\n/exit\n", "--yes-all"
    )
    assert result.returncode == 0, result.stderr
    assert "runs when the folder is opened in VS Code, so it is always asked" in result.stderr
    assert not (workspace / ".vscode" / "tasks.json").exists()
