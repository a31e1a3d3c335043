"""SIGKILL the real app mid-turn, start it again: what the user had is still there.

``metona-tray chat`` runs as a subprocess against the fake Ollama; the test watches the chat
database (read-only, WAL) until the moment it wants, kills the process, then reopens the store
as the next start would and checks what survived.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import chat_args
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import slow_turn, text_turn, tool_turn
from tests.support.waiting import eventually
from tray_app.base.paths import AppPaths
from tray_app.store.opening import open_chat_store
from tray_app.store.settings import Settings, save_settings


def poll(db: Path, sql: str, ready: Callable[[list[tuple[Any, ...]]], bool], timeout: float = 20):
    """The rows of ``sql`` once ``ready`` accepts them (the app writes the database)."""

    def accepted() -> list[tuple[Any, ...]] | None:
        if not db.exists():
            return None
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            rows = conn.execute(sql).fetchall()
        except sqlite3.OperationalError:
            rows = []
        finally:
            conn.close()
        return rows if ready(rows) else None

    return eventually(accepted, timeout, f"the rows wanted in {db.name}", interval=0.05)


def command_running(text: str) -> bool:
    found = subprocess.run(["pgrep", "-f", text], capture_output=True, text=True, check=False)
    return any(
        Path(f"/proc/{pid}/stat").exists() and " Z " not in Path(f"/proc/{pid}/stat").read_text()
        for pid in found.stdout.split()
    )


@pytest.fixture
def start_chat(metona_home: Path, tmp_path: Path) -> Callable[..., subprocess.Popen[str]]:
    home = tmp_path / "home"
    home.mkdir()
    procs: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        """``metona-tray`` with ``args`` (``chat_args``), running until the test ends it."""
        env = dict(os.environ, METONA_HOME=str(metona_home), HOME=str(home), NO_COLOR="1")
        proc = subprocess.Popen(
            [sys.executable, "-m", "tray_app", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


def test_killed_mid_stream_the_answer_so_far_comes_back_as_stopped(
    start_chat: Callable[..., subprocess.Popen[str]],
    fake_ollama: FakeOllama,
    app_paths: AppPaths,
    tmp_path: Path,
) -> None:
    words = " ".join(f"word{i}" for i in range(200))
    fake_ollama.script(slow_turn(words, delay=0.05, chunk_chars=6))
    proc = start_chat(*chat_args(fake_ollama.url, tmp_path, "--json", "tell me a long story"))
    db = app_paths.database_file
    poll(
        db,
        "SELECT content FROM messages WHERE role='assistant'",
        lambda rows: bool(rows) and len(rows[0][0]) >= 30,
    )
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)

    chats, warning = open_chat_store(app_paths)  # the next start
    assert warning is None
    (session,) = chats.list_sessions()
    messages = chats.messages(session.id)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[0].content == "tell me a long story"
    answer = messages[1]
    assert answer.stopped is True
    assert len(answer.content) >= 30 and words.startswith(answer.content)
    chats.close()


def test_killed_mid_tool_call_the_card_and_the_call_survive(
    start_chat: Callable[..., subprocess.Popen[str]],
    fake_ollama: FakeOllama,
    app_paths: AppPaths,
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    save_settings(
        Settings(allowed_dirs=[str(workspace)], run_command_enabled=True),
        app_paths.settings_file,
    )
    fake_ollama.script(
        tool_turn(
            [
                ("write_file", {"path": "a.txt", "content": "first\n"}),
                ("run_command", {"command": "sleep 61.25"}),
            ]
        ),
    )
    proc = start_chat(
        *chat_args(fake_ollama.url, workspace, "--json", "--yes-all", "write then wait")
    )
    db = app_paths.database_file
    poll(db, "SELECT name, status FROM tool_calls", lambda rows: ("run_command", "running") in rows)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)

    chats, _ = open_chat_store(app_paths)
    (session,) = chats.list_sessions()
    calls = {c.name: c for c in chats.tool_calls(session.id)}
    assert calls["write_file"].status == "success"
    assert calls["write_file"].result and calls["write_file"].result["success"] is True
    assert calls["run_command"].status == "cancelled"
    assert "interrupted" in (calls["run_command"].result or {}).get("error", "")
    assert (workspace / "a.txt").read_text() == "first\n"
    chats.close()

    # The killed app could not stop its command; the next start does. (No check that it is
    # running now: any app start elsewhere in a parallel run may already have reaped it.)
    fake_ollama.script(text_turn("Sorry, the command was interrupted."))
    again = start_chat(
        "chat",
        "--json",
        "--session",
        session.id,
        "--endpoint",
        fake_ollama.url,
        "--workspace",
        str(workspace),
        "what happened?",
    )
    _, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    history = fake_ollama.chat_requests[-1]["messages"]
    results = [json.loads(m["content"]) for m in history if m["role"] == "tool"]
    assert [r["success"] for r in results] == [True, False]
    eventually(lambda: not command_running("sleep 61.25"), 10, "the command gone")


@pytest.fixture(autouse=True)
def _no_orphaned_sleep() -> Any:
    """A SIGKILLed app cannot stop its command's process group; the test does it."""
    yield
    subprocess.run(["pkill", "-f", "sleep 61.25"], check=False)
