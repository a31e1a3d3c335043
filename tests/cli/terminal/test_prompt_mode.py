"""``metona-tray chat`` with a model that has no native tool calls (gemma3 on the fake Ollama):
the tools are described in its prompt, the call it writes as text reads a real file in the
workspace, and the file comes back to it as a ``<tool_response>`` it can read. A real
subprocess (``tests.support.terminal_mode_rig``)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.cli import chat_args
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.support import terminal_mode_rig
from tests.support.terminal_mode_rig import Run, events

home = terminal_mode_rig.home
workspace = terminal_mode_rig.workspace
run = terminal_mode_rig.run


def test_a_model_without_tools_reads_a_file_through_its_prompt(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    (workspace / "笔记.txt").write_text("第一行 🙂\nline two\n", encoding="utf-8")
    fake_ollama.script(
        tool_turn([("read_file", {"path": "笔记.txt"})], chunk_chars=3),
        text_turn("It says 第一行."),
    )
    result = run(
        *chat_args(fake_ollama.url, workspace, "--json", "read 笔记.txt", model="gemma3:4b")
    )
    assert result.returncode == 0, result.stderr
    seen = events(result.stdout)
    calls = [e for e in seen if e["type"] == "tool_call"]
    assert [c["call"]["name"] for c in calls] == ["read_file"]
    shown = "".join(e["text"] for e in seen if e["type"] == "content_delta")
    assert "<tool_call>" not in shown and shown.endswith("It says 第一行.")
    first, second = fake_ollama.chat_requests
    assert "tools" not in first and "### read_file" in first["messages"][0]["content"]
    reply = second["messages"][-1]
    assert reply["role"] == "user"
    assert reply["content"].startswith('<tool_response name="read_file">')
    assert "第一行 🙂" in reply["content"]


def test_the_plain_answer_is_printed_without_markup(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    fake_ollama.script(tool_turn([("read_file", {"path": "a.txt"})]), text_turn("Alpha, it says."))
    result = run(*chat_args(fake_ollama.url, workspace, "read a.txt", model="gemma3:4b"))
    assert result.returncode == 0, result.stderr
    assert "Alpha, it says." in result.stdout
    assert result.stdout == "Alpha, it says.\n"  # the answer alone, no markup
    assert "[tool] read_file path=a.txt" in result.stderr  # the call, as for a native one
    assert "<tool_call>" not in result.stderr
