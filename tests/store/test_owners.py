"""Owner marks and the repair at start: a live process's answer is never marked stopped.

A second process is a real ``python`` child holding its own mark (the OS lock is what tells a
live owner from a dead one, so it must be another process, not another thread).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tray_app.base.messages import ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.opening import open_chat_store
from tray_app.store.owners import (
    OWNERS_DIR,
    OwnerCheck,
    ProcessMark,
    repair_lock,
    sweep_dead_marks,
)
from tray_app.store.records import MessageRecord

REPO = Path(__file__).resolve().parents[2]

# A child that writes a streaming answer and a pending call as the loop does, then waits.
CHILD = """
import sys
from pathlib import Path
from tray_app.base.paths import AppPaths
from tray_app.store.opening import open_chat_store
from tray_app.base.messages import ToolCallRecord
from tray_app.store.records import MessageRecord
paths = AppPaths.under(Path(sys.argv[1]))
chats, _ = open_chat_store(paths)
s = chats.create_session(model="m", workspace=None, title="流式 🌊")
m = MessageRecord(session_id=s.id, role="assistant", content="半句话", stats={"streaming": True})
chats.add_message(m)
chats.upsert_tool_call(ToolCallRecord(call_id="c1", session_id=s.id, message_id=m.id,
                                      name="write_file", status="pending"))
print(s.id, flush=True)
sys.stdin.readline()
chats.update_message(m.id, content="半句话，说完了。", stats={"done": True})
chats.upsert_tool_call(ToolCallRecord(call_id="c1", session_id=s.id, message_id=m.id,
                                      name="write_file", status="success"))
chats.close()
print("closed", flush=True)
"""


def start_child(home: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()  # blocks until the child wrote (or died: "")
    assert line, proc.stderr.read() if proc.stderr else ""
    return proc, line


def test_a_live_process_keeps_its_streaming_answer_and_pending_call(
    metona_home: Path, app_paths: AppPaths
) -> None:
    proc, session_id = start_child(metona_home)
    try:
        chats, warning = open_chat_store(app_paths)  # the start of a second process
        assert warning is None and isinstance(chats, SQLiteChats)
        try:
            [message] = chats.messages(session_id)
            assert message.stopped is False and message.stats == {"streaming": True}
            [call] = chats.tool_calls(session_id)
            assert call.status == "pending"
            assert chats.mark_interrupted() == 0
        finally:
            chats.close()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "closed"
    finally:
        proc.kill()
        proc.wait(10)
    after, _ = open_chat_store(app_paths)
    try:
        [message] = after.messages(session_id)
        assert (message.content, message.stopped) == ("半句话，说完了。", False)
    finally:
        after.close()


def test_a_killed_process_is_repaired_by_the_next_start(
    metona_home: Path, app_paths: AppPaths
) -> None:
    proc, session_id = start_child(metona_home)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    chats, _ = open_chat_store(app_paths)
    try:
        message = chats.messages(session_id)[0]
        assert message.stopped is True and message.stats == {"interrupted": True}
        assert message.content == "半句话"  # what the user saw is kept
        [call] = chats.tool_calls(session_id)
        assert call.status == "cancelled" and "interrupted" in str(call.result)
    finally:
        chats.close()
    # The dead process's mark is cleaned up by the repair; only ours is left, then none.
    assert list((app_paths.data_dir / OWNERS_DIR).iterdir()) == []


def test_rows_from_before_owners_were_recorded_count_as_unowned(app_paths: AppPaths) -> None:
    chats = SQLiteChats(open_database(app_paths.database_file))  # no mark: owner stays NULL
    session = chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="assistant", stats={"streaming": True})
    chats.add_message(message)
    chats.upsert_tool_call(
        ToolCallRecord(call_id="c", session_id=session.id, message_id=message.id, name="x")
    )
    assert chats.live_answers() == set()
    assert chats.mark_interrupted() == 2
    chats.close()


def test_owner_check_tells_live_from_dead_and_refuses_odd_tokens(tmp_path: Path) -> None:
    mark = ProcessMark.acquire(tmp_path)
    assert mark is not None
    check = OwnerCheck(tmp_path)
    assert check.alive(mark.token)  # held through another descriptor: alive
    stale = tmp_path / OWNERS_DIR / "1-dead.lock"
    stale.write_bytes(b"")
    assert not OwnerCheck(tmp_path).alive("1-dead") and not stale.exists()
    for odd in ("", None, "../x", ".hidden", "no-such"):
        assert not OwnerCheck(tmp_path).alive(odd)
    mark.release()
    assert not OwnerCheck(tmp_path).alive(mark.token)


def test_the_marks_of_dead_processes_are_swept_and_live_ones_kept(
    metona_home: Path, app_paths: AppPaths
) -> None:
    proc, _ = start_child(metona_home)
    try:
        owners = app_paths.data_dir / OWNERS_DIR
        for dead in ("11-aa", "12-bb"):
            (owners / f"{dead}.lock").write_bytes(b"")
        assert sweep_dead_marks(app_paths.data_dir) == 2
        [live] = list(owners.iterdir())
        assert live.name.startswith(f"{proc.pid}-")
    finally:
        proc.kill()
        proc.wait(10)


def test_the_repair_lock_is_exclusive_and_gives_up_after_its_timeout(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from tray_app.store.owners import repair_lock\n"
            "with repair_lock(Path(sys.argv[1])) as held:\n"
            "    print(held, flush=True); sys.stdin.readline()",
            str(tmp_path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
        with repair_lock(tmp_path, timeout=0.2) as held:
            assert held is False
    finally:
        holder.kill()
        holder.wait(10)
    with repair_lock(tmp_path, timeout=5) as held:
        assert held is True


def test_a_data_folder_that_cannot_be_written_gives_no_mark_and_no_lock(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert ProcessMark.acquire(blocker) is None
    with repair_lock(blocker) as held:
        assert held is False
