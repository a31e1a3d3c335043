"""The terminal commands with odd pipes, odd paths and wrong arguments, run as a user runs them.

``metona-tray`` is a real subprocess against the fake Ollama server, with METONA_HOME in the
test's temp folder (``tests.support.terminal_rig``). Every stderr is checked for tracebacks.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import slow_turn, text_turn, tool_turn
from tests.support.terminal_rig import Cli, ask, one_line, rows
from tests.support.waiting import eventually
from tray_app.base.paths import AppPaths


def test_json_into_head_ends_quietly_and_stops_the_turn(
    cli: Cli, fake_ollama: FakeOllama, app_paths: AppPaths
) -> None:
    fake_ollama.script(slow_turn("词 " * 400, delay=0.02, chunk_chars=2))
    proc = cli.start("chat", "--json", "--model", "qwen3:8b", "--endpoint", fake_ollama.url, "hi")
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # what `| head -1` reads
    assert first.startswith("{")
    # Some of the answer has streamed (and been saved): the assistant's row alone is made before
    # the first piece arrives, and a pipe closed then has nothing to keep.
    streamed = "SELECT 1 FROM messages WHERE role='assistant' AND content != ''"
    eventually(lambda: rows(app_paths.database_file, streamed), message="the answer started")
    proc.stdout.close()  # `head` exits: the next write gets EPIPE
    assert proc.wait(30) == 141  # 128 + SIGPIPE, what a shell reports for a cut-off filter
    stderr = proc.stderr.read()
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    # The turn was stopped (by the closing app, or on a slow machine by the next start's
    # repair), not left streaming, and what streamed was kept.
    assert cli.run("sessions").returncode == 0
    sql = "SELECT stopped, content FROM messages WHERE role='assistant'"
    [(stopped, content)] = eventually(
        lambda: rows(app_paths.database_file, sql), message="readable"
    )
    assert stopped == 1 and content.startswith("词")


def test_export_into_a_reader_that_is_gone_ends_quietly(cli: Cli, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(text_turn("第一行 🌊\n" * 50))
    assert ask(cli, fake_ollama, "lines").returncode == 0
    session_id = cli.run("sessions").stdout.split()[0]
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head -1` that has already exited: every write gets EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tray_app", "export", session_id],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=cli.env,
            cwd=cli.cwd,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


def test_a_relative_workspace_is_the_folder_under_the_current_one(
    cli: Cli, fake_ollama: FakeOllama
) -> None:
    (cli.cwd / "项目 🗂").mkdir()
    fake_ollama.script(
        tool_turn([("write_file", {"path": "notes.txt", "content": "here\n"})]),
        text_turn("Done."),
    )
    result = ask(cli, fake_ollama, "write notes", "--workspace", "项目 🗂", "--yes")
    assert result.returncode == 0, result.stderr
    assert (cli.cwd / "项目 🗂" / "notes.txt").read_text() == "here\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--max-rounds", "200"], "--max-rounds: must be between 1 and 100"),
        (["--max-rounds", "0"], "--max-rounds: must be between 1 and 100"),
        (["--max-rounds", "many"], "--max-rounds: must be a whole number between 1 and 100"),
        (["--endpoint", "ftp://x"], "--endpoint: the endpoint must start with http://"),
    ],
)
def test_a_usage_error_names_the_option_and_what_it_accepts(
    cli: Cli, args: list[str], expected: str
) -> None:
    result = cli.run("chat", *args, "hi")
    assert result.returncode == 2
    assert expected in result.stderr
    assert "pydantic" not in result.stderr and "validation error" not in result.stderr


def test_a_chat_or_change_that_is_not_there_is_one_line_and_a_usage_error(
    cli: Cli, fake_ollama: FakeOllama
) -> None:
    """Core's ``NotFound`` reaches the user of each command as one sentence and exit code 2."""
    name = "s_gone\u202egpj.exe你好👋"
    chat = ask(cli, fake_ollama, "hi", "--session", name)
    assert chat.returncode == 2, chat.stderr
    assert "no stored chat" in one_line(chat.stderr, "no stored chat")
    assert fake_ollama.chat_requests == [], "nothing was sent for a chat that is not there"
    export = cli.run("export", name)
    assert export.returncode == 2 and "no stored chat" in export.stderr
    undo = cli.run("undo", "4242")
    assert undo.returncode == 2, undo.stderr
    assert one_line(undo.stderr, "metona-tray undo:").endswith("no change 4242 in the journal")
    nothing = cli.run("undo", "--last")
    assert nothing.returncode == 1 and "nothing to undo" in nothing.stderr
