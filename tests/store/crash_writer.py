"""A child process for the crash tests: writes like the agent loop, reports each commit.

    python -m tests.store.crash_writer DB MODE

Each line on stdout is printed only after the write it names was committed, so the parent
knows what must survive a SIGKILL. Modes:

- ``messages``: add user messages in a loop; prints ``message <id>``.
- ``stream``: one assistant message saved again and again as text streams in; prints
  ``content <length>``.
- ``tool``: an assistant message asking for a call, its record ``running``; prints
  ``running <call_id>`` and waits to be killed.
- ``read``: a reader with no busy wait; prints ``reads <n> errors <n> max <count>`` when
  the count changes and every 500 reads, until stdin closes.
- ``settings``: saves two settings alternately to the path DB; prints ``saved <n>``.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
from pathlib import Path

from tray_app.base.messages import ToolCall, ToolCallRecord
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import MessageRecord
from tray_app.store.settings import Settings, save_settings

CHUNK = "0123456789abcdef" * 4


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    path, mode = Path(sys.argv[1]), sys.argv[2]
    if mode == "settings":
        saves = [Settings(default_model="first"), Settings(default_model="second")]
        count = 0
        while True:
            save_settings(saves[count % 2], path)
            count += 1
            say(f"saved {count}")
    if mode == "read":
        read(path)
        return
    chats = SQLiteChats(open_database(path))
    session = chats.create_session(model="m", workspace=None, title=mode)
    say(f"session {session.id}")
    if mode == "messages":
        while True:
            message = MessageRecord(session_id=session.id, role="user", content="x" * 200)
            chats.add_message(message)
            say(f"message {message.id}")
    elif mode == "stream":
        message = MessageRecord(session_id=session.id, role="assistant", stats={"streaming": True})
        chats.add_message(message)
        content = ""
        while True:
            content += CHUNK
            chats.update_message(message.id, content=content, thinking="t" * len(content))
            say(f"content {len(content)}")
    elif mode == "tool":
        chats.add_message(MessageRecord(session_id=session.id, role="user", content="go"))
        asked = MessageRecord(
            session_id=session.id,
            role="assistant",
            content="Writing it.",
            tool_calls=[ToolCall(id="p1", name="write_file", arguments={"path": "/tmp/a"})],
            stats={"eval_ms": 1.0},
        )
        chats.add_message(asked)
        record = ToolCallRecord(
            call_id="c_1",
            session_id=session.id,
            message_id=asked.id,
            provider_id="p1",
            name="write_file",
            arguments={"path": "/tmp/a"},
        )
        chats.upsert_tool_call(record)
        record.status, record.decision, record.decided_by = "running", "approved", "popup"
        chats.upsert_tool_call(record)
        say(f"running {record.call_id}")
        sys.stdin.read()  # wait for the kill


def read(path: Path) -> None:
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0)
    reads = errors = highest = 0
    say(f"reads {reads} errors {errors} max {highest}")
    while not stop.is_set():
        try:
            count = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        except sqlite3.OperationalError:
            errors += 1
            count = highest
        else:
            reads += 1
        if count != highest or reads % 500 == 0:
            highest = max(highest, count)
            say(f"reads {reads} errors {errors} max {highest}")
    conn.close()
    say(f"reads {reads} errors {errors} max {highest}")


if __name__ == "__main__":
    main()
