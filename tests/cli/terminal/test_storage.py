"""The terminal commands under broken storage, run as a user runs them: a read-only data
folder, a damaged or locked database, a kill -9 mid-turn, a second command beside a live chat.

``metona-tray`` is a real subprocess against the fake Ollama server, with METONA_HOME in the
test's temp folder (``tests.support.terminal_rig``). Read-only data folders are real read-only bind
mounts in a private mount namespace (root only, skipped otherwise). Every stderr is checked for
tracebacks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import slow_turn, text_turn
from tests.support.terminal_rig import ANSWER, Cli, ask, needs_mounts, one_line, rows
from tests.support.waiting import eventually
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import MessageRecord


def stored_chat(cli: Cli, fake: FakeOllama) -> str:
    fake.script(text_turn("第一次的回答 🌱"))
    first = ask(cli, fake, "first question")
    assert first.returncode == 0, first.stderr
    listing = cli.run("sessions")
    assert listing.returncode == 0, listing.stderr
    return str(listing.stdout.split()[0])


@needs_mounts
def test_a_read_only_data_folder_keeps_every_command_working(
    cli: Cli, fake_ollama: FakeOllama, app_paths: AppPaths
) -> None:
    session_id = stored_chat(cli, fake_ollama)
    before = app_paths.database_file.read_bytes()

    fake_ollama.script(text_turn(ANSWER))
    chat = ask(cli, fake_ollama, "on a read-only disk", read_only=True)
    assert chat.returncode == 0, chat.stderr
    assert ANSWER in chat.stdout  # the chat works, with history off
    line = one_line(chat.stderr, "History is off")
    assert "read-only" in line

    listing = cli.run("sessions", read_only=True)
    assert listing.returncode == 0 and session_id in listing.stdout
    assert "read-only" in one_line(listing.stderr, "History is read-only")

    exported = cli.run("export", session_id, read_only=True)
    assert exported.returncode == 0 and "第一次的回答 🌱" in exported.stdout
    assert app_paths.database_file.read_bytes() == before


@needs_mounts
def test_a_read_only_data_folder_without_history_says_so_in_one_line(cli: Cli) -> None:
    (cli.home / "data").mkdir()
    for command in (["sessions"], ["export", "s_x"]):
        result = cli.run(*command, read_only=True)
        assert result.returncode == 1
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "History is off" in result.stderr


def corrupt_one_page(path: Path) -> bytes:
    chats = SQLiteChats(open_database(path))
    session = chats.create_session(model="m", workspace=None, title="big")
    for _ in range(150):
        chats.add_message(MessageRecord(session_id=session.id, role="user", content="字" * 900))
    chats.close()
    data = bytearray(path.read_bytes())
    page = len(data) // 4096 // 2
    data[page * 4096 : (page + 1) * 4096] = os.urandom(4096)
    path.write_bytes(bytes(data))
    return bytes(data)


def test_a_database_with_one_damaged_page_turns_history_off_and_stays_untouched(
    cli: Cli, fake_ollama: FakeOllama, app_paths: AppPaths
) -> None:
    app_paths.data_dir.mkdir(parents=True, exist_ok=True)
    damaged = corrupt_one_page(app_paths.database_file)
    fake_ollama.script(text_turn(ANSWER))
    chat = ask(cli, fake_ollama, "still there?")
    assert chat.returncode == 0, chat.stderr
    assert ANSWER in chat.stdout
    assert "damaged" in one_line(chat.stderr, "History is off")
    listing = cli.run("sessions")
    assert listing.returncode == 1 and "damaged" in one_line(listing.stderr, "damaged")
    exported = cli.run("export", "s_anything")
    assert exported.returncode == 1 and "damaged" in exported.stderr
    continued = ask(cli, fake_ollama, "more", "--session", "s_anything")
    assert continued.returncode == 1 and "history is off" in continued.stderr
    assert app_paths.database_file.read_bytes() == damaged
    assert not list(app_paths.data_dir.glob("chats.sqlite3-*"))  # no -wal/-shm beside it


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en_US.UTF-8", "the stored chat 's_报告⟨U+202E⟩🎉' cannot be continued"),
        ("zh_CN.UTF-8", "历史记录已关闭（见上文），因此无法继续保存的对话“s_报告⟨U+202E⟩🎉”"),
    ],
)
def test_with_history_off_a_chat_named_to_continue_is_said_in_the_terminals_language(
    cli: Cli, fake_ollama: FakeOllama, app_paths: AppPaths, lang: str, said: str
) -> None:
    """The chat's id is the user's own input: written out (⟨U+202E⟩) as everywhere in the
    terminal, in the sentence of the terminal's language."""
    app_paths.data_dir.mkdir(parents=True, exist_ok=True)
    corrupt_one_page(app_paths.database_file)
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        cli.env.pop(name, None)
    cli.env["LANG"] = lang
    continued = ask(cli, fake_ollama, "more", "--session", "s_报告\u202e🎉")
    assert continued.returncode == 1, continued.stderr
    assert said in one_line(continued.stderr, "s_报告"), continued.stderr
    assert "\u202e" not in continued.stderr and "\\u202e" not in continued.stderr


def test_a_locked_database_turns_history_off_for_the_chat_and_says_so(
    cli: Cli, fake_ollama: FakeOllama, app_paths: AppPaths
) -> None:
    session_id = stored_chat(cli, fake_ollama)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN EXCLUSIVE'); c.execute('DELETE FROM sessions WHERE 0')\n"
            "print('locked', flush=True); sys.stdin.readline(); c.rollback()",
            str(app_paths.database_file),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        fake_ollama.script(text_turn(ANSWER))
        chat = ask(cli, fake_ollama, "while locked")
        assert chat.returncode == 0, chat.stderr
        assert ANSWER in chat.stdout
        assert "locked by another program" in one_line(chat.stderr, "History is off")
        listing = cli.run("sessions")  # readers still get in (WAL): listed, and said why
        assert listing.returncode == 0 and session_id in listing.stdout
        assert "locked" in one_line(listing.stderr, "History is read-only")
    finally:
        holder.kill()
        holder.wait(10)


# ---- repair on every start -------------------------------------------------------------------


@pytest.mark.parametrize("command", ["sessions", "export"])
def test_after_kill_9_mid_turn_sessions_and_export_repair_what_was_left(
    cli: Cli, fake_ollama: FakeOllama, app_paths: AppPaths, command: str
) -> None:
    words = " ".join(f"词{i}" for i in range(300))
    fake_ollama.script(slow_turn(words, delay=0.03, chunk_chars=4))
    proc = cli.start("chat", "--json", "--model", "qwen3:8b", "--endpoint", fake_ollama.url, "go")
    db = app_paths.database_file
    sql = "SELECT session_id, content FROM messages WHERE role='assistant'"
    session_id = eventually(lambda: [r for r in rows(db, sql) if len(r[1]) >= 20], message="saved")[
        0
    ][0]
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)

    args = ["sessions"] if command == "sessions" else ["export", session_id, "--format", "json"]
    result = cli.run(*args)
    assert result.returncode == 0, result.stderr
    [(stopped, stats, content)] = rows(
        db, "SELECT stopped, stats, content FROM messages WHERE role='assistant'"
    )
    assert stopped == 1 and '"interrupted": true' in stats and words.startswith(content)


def test_a_second_command_leaves_a_live_chat_streaming(
    cli: Cli, fake_ollama: FakeOllama, app_paths: AppPaths
) -> None:
    words = " ".join(f"w{i}" for i in range(150))
    fake_ollama.script(slow_turn(words, delay=0.02, chunk_chars=3))
    proc = cli.start("chat", "--model", "qwen3:8b", "--endpoint", fake_ollama.url, "go on")
    db = app_paths.database_file
    sql = "SELECT session_id, content FROM messages WHERE role='assistant'"
    eventually(lambda: [r for r in rows(db, sql) if len(r[1]) >= 10], message="streaming")
    for _ in range(2):  # two starts while the first chat streams
        assert cli.run("sessions").returncode == 0
        [(stopped, stats)] = rows(db, "SELECT stopped, stats FROM messages WHERE role='assistant'")
        if '"streaming"' not in stats:
            break  # the answer finished meanwhile; still it must not be stopped
        assert stopped == 0
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert words in out
    [(stopped, content)] = rows(db, "SELECT stopped, content FROM messages WHERE role='assistant'")
    assert (stopped, content) == (0, words)
