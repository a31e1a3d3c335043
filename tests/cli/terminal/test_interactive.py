"""The terminal mode as a person uses it: an interactive chat, and approvals typed at a prompt."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.cli import chat_command, cli_env, on_a_terminal, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn


def test_no_prompt_starts_a_chat_that_reads_one_message_per_line(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    fake_ollama.script(text_turn("First answer."), text_turn("Second answer."))
    env = cli_env(metona_home, tmp_path)
    result = run_cli(chat_command(fake_ollama.url, tmp_path), env, "hello\nand again\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "First answer." in result.stdout and "Second answer." in result.stdout
    second = fake_ollama.chat_requests[1]["messages"]
    assert [m["content"] for m in second if m["role"] == "user"] == ["hello", "and again"]


def test_on_a_terminal_a_write_waits_for_the_typed_answer(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    fake_ollama.script(
        tool_turn([("write_file", {"path": "note.md", "content": "# Hi\n"})]),
        text_turn("Written."),
    )
    command = chat_command(fake_ollama.url, workspace, "write a note")
    with on_a_terminal(command, cli_env(metona_home, tmp_path)) as terminal:
        shown = terminal.read_until(b"Approve write_file?")
        assert b"note.md" in shown and b"new file, 5 bytes" in shown and b"# Hi" in shown
        assert not (workspace / "note.md").exists()
        terminal.type("y\n")
        out, _ = terminal.proc.communicate(timeout=30)
    assert terminal.proc.returncode == 0
    assert (workspace / "note.md").read_text() == "# Hi\n"
    assert b"Written." in out


def test_always_at_the_prompt_keeps_a_rule_the_next_chat_follows(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    from tray_app.base.paths import AppPaths
    from tray_app.store.settings import load_settings

    workspace = tmp_path / "工作 🚀"
    workspace.mkdir()
    fake_ollama.script(
        tool_turn([("write_file", {"path": "a.md", "content": "a"})]), text_turn("Written.")
    )
    command = chat_command(fake_ollama.url, workspace, "write a note")
    with on_a_terminal(command, cli_env(metona_home, tmp_path)) as terminal:
        shown = terminal.read_until(b"a lasting rule for write_file in")
        assert str(workspace).encode() in shown
        terminal.type("always\n")
        terminal.proc.communicate(timeout=30)
    assert terminal.proc.returncode == 0
    assert (workspace / "a.md").read_text() == "a"
    rules = load_settings(AppPaths.under(metona_home).settings_file).tool_rules
    assert [(r["tool"], r["folder"], r["action"]) for r in rules] == [
        ("write_file", str(workspace), "allow")
    ]
    # The next chat, with no terminal to ask, writes in that folder without asking.
    fake_ollama.script(
        tool_turn([("write_file", {"path": "b.md", "content": "b"})]), text_turn("Written.")
    )
    result = run_cli(
        chat_command(fake_ollama.url, workspace, "another"), cli_env(metona_home, tmp_path), ""
    )
    assert result.returncode == 0, result.stderr
    assert (workspace / "b.md").read_text() == "b"
