"""The terminal commands under broken storage and odd pipes, run as a user runs them.

``metona-tray`` is a real subprocess against the fake Ollama server, with METONA_HOME in the
test's temp folder. Read-only data folders are real read-only bind mounts in a private mount
namespace (``unshare -m``; root only, skipped otherwise: root ignores file permissions).
Every stderr is checked for tracebacks.
"""

from __future__ import annotations

import codecs
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import slow_turn, text_turn, tool_turn
from tray_app.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import MessageRecord

REPO = Path(__file__).resolve().parents[1]
CAN_MOUNT = (
    sys.platform == "linux"
    and os.geteuid() == 0
    and shutil.which("unshare") is not None
    and subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode == 0
)
needs_mounts = pytest.mark.skipif(not CAN_MOUNT, reason="needs root and mount namespaces")
ANSWER = "答案：一切正常 ✅ \u202eok\u202c"


class Cli:
    """Runs ``python -m tray_app ...`` with this test's METONA_HOME, HOME and working folder."""

    def __init__(self, metona_home: Path, tmp_path: Path) -> None:
        self.home = metona_home
        self.cwd = tmp_path / "cwd"
        self.cwd.mkdir()
        user_home = tmp_path / "user"
        user_home.mkdir()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
        self.env.update(METONA_HOME=str(metona_home), HOME=str(user_home), NO_COLOR="1")
        self.env["PYTHONPATH"] = str(REPO)
        self.env.pop("DISPLAY", None)
        self.env.pop("WAYLAND_DISPLAY", None)

    def argv(self, args: tuple[str, ...], read_only: bool) -> list[str]:
        command = [sys.executable, "-m", "tray_app", *args]
        if not read_only:
            return command
        # The whole METONA_HOME read-only, for this process only.
        script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"'
        namespace = ["unshare", "-m", "--propagation", "private", "sh", "-c", script]
        return [*namespace, str(self.home), *command]

    def run(self, *args: str, read_only: bool = False, timeout: float = 60) -> Any:
        result = subprocess.run(
            self.argv(args, read_only),
            input="",
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.cwd,
            timeout=timeout,
        )
        assert "Traceback" not in result.stderr, result.stderr
        return result

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(args, False),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            cwd=self.cwd,
        )


@pytest.fixture
def cli(metona_home: Path, tmp_path: Path) -> Iterator[Cli]:
    yield Cli(metona_home, tmp_path)


def ask(cli: Cli, fake: FakeOllama, prompt: str, *flags: str, read_only: bool = False) -> Any:
    return cli.run(
        "chat", "--model", "qwen3:8b", "--endpoint", fake.url, *flags, prompt, read_only=read_only
    )


def wait_for(check: Callable[[], Any], timeout: float = 20, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)  # polling another process's file; bounded by the deadline
    raise AssertionError(f"{what} not met within {timeout}s")


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def one_line(stderr: str, needle: str) -> str:
    lines = [line for line in stderr.splitlines() if needle in line]
    assert len(lines) == 1, stderr
    return lines[0]


# ---- the command line ----------------------------------------------------------------------


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
    wait_for(lambda: rows(app_paths.database_file, streamed), what="the answer started")
    proc.stdout.close()  # `head` exits: the next write gets EPIPE
    assert proc.wait(30) == 141  # 128 + SIGPIPE, what a shell reports for a cut-off filter
    stderr = proc.stderr.read()
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    # The turn was stopped (by the closing app, or on a slow machine by the next start's
    # repair), not left streaming, and what streamed was kept.
    assert cli.run("sessions").returncode == 0
    sql = "SELECT stopped, content FROM messages WHERE role='assistant'"
    [(stopped, content)] = wait_for(lambda: rows(app_paths.database_file, sql), what="readable")
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


# ---- broken storage --------------------------------------------------------------------------


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
    session_id = wait_for(lambda: [r for r in rows(db, sql) if len(r[1]) >= 20], what="saved")[0][0]
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
    wait_for(lambda: [r for r in rows(db, sql) if len(r[1]) >= 10], what="streaming")
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


# ---- a data folder that fills up while an answer streams -------------------------------------


class FullDisk:
    """A small tmpfs on METONA_HOME/data, in a mount namespace kept open by a sleeping process.

    Commands run inside it with ``nsenter``; the test reaches the tmpfs through
    ``/proc/<pid>/root`` to fill it up and to free it again.
    """

    def __init__(self, cli: Cli, size: str) -> None:
        self.data = cli.home / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        script = 'mount -t tmpfs -o size="$1" tmpfs "$0" && echo ready && exec sleep 600'
        self.holder = subprocess.Popen(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(self.data), size],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.holder.stdout is not None and self.holder.stdout.readline().strip() == "ready"
        self.inside = Path(f"/proc/{self.holder.pid}/root{self.data}")
        self.filler = self.inside / "filler.bin"

    def prefix(self) -> list[str]:
        return ["nsenter", "-t", str(self.holder.pid), "-m", "--"]

    def fill(self) -> None:
        chunk = b"\0" * 65536
        with open(self.filler, "ab") as handle:
            while True:
                try:
                    handle.write(chunk)
                    handle.flush()
                except OSError:
                    return

    def free(self) -> None:
        self.filler.unlink()

    def close(self) -> None:
        self.holder.kill()
        self.holder.wait(10)


@pytest.fixture
def full_disk(cli: Cli) -> Iterator[FullDisk]:
    disk = FullDisk(cli, "3m")
    original = cli.argv

    def argv(args: tuple[str, ...], read_only: bool) -> list[str]:
        return [*disk.prefix(), *original(args, read_only)]

    cli.argv = argv  # type: ignore[method-assign]
    yield disk
    disk.close()


class Lines:
    """A child's stdout, read on a thread, so the test can wait for a line without blocking."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        self.items: list[str] = []
        self._thread = threading.Thread(target=self._pump, args=(proc.stdout,), daemon=True)
        self._thread.start()

    def _pump(self, stream: Any) -> None:
        # Chunks as they come, not lines: the terminal prints an answer without newlines.
        decoder = codecs.getincrementaldecoder("utf-8")()
        while chunk := os.read(stream.fileno(), 4096):
            self.items.append(decoder.decode(chunk))

    def text(self) -> str:
        return "".join(self.items)

    def join(self) -> str:
        self._thread.join(30)
        return self.text()


@needs_mounts
def test_a_disk_that_fills_mid_answer_loses_nothing_and_saves_once_freed(
    cli: Cli, fake_ollama: FakeOllama, full_disk: FullDisk
) -> None:
    words = "".join(f"段落{i} 🌊 " for i in range(500))
    fake_ollama.script(slow_turn(words, delay=0.02, chunk_chars=5))
    proc = cli.start("chat", "--json", "--model", "qwen3:8b", "--endpoint", fake_ollama.url, "写")
    out = Lines(proc)
    wait_for(lambda: "content_delta" in out.text(), what="the answer streams")
    full_disk.fill()
    wait_for(lambda: "history_not_saved" in out.text(), what="a notice that it is not saved")
    full_disk.free()
    assert proc.wait(60) == 0
    assert proc.stderr is not None
    err = proc.stderr.read()
    seen = [json.loads(line) for line in out.join().splitlines()]
    [notice] = [e for e in seen if e.get("code") == "history_not_saved"]
    assert "export" in notice["message"] and notice["level"] == "warning"
    assert "Traceback" not in err
    assert "".join(e["text"] for e in seen if e["type"] == "content_delta") == words
    assert "history_saved" in [e.get("code") for e in seen]

    session_id = next(e["session"]["id"] for e in seen if e["type"] == "session_updated")
    exported = cli.run("export", session_id)
    assert exported.returncode == 0, exported.stderr
    assert words.strip() in exported.stdout


@needs_mounts
def test_a_disk_that_stays_full_still_prints_the_answer_and_exports_it_elsewhere(
    cli: Cli, fake_ollama: FakeOllama, full_disk: FullDisk, tmp_path: Path
) -> None:
    words = "".join(f"句子{i} ✅ " for i in range(400))
    fake_ollama.script(slow_turn(words, delay=0.02, chunk_chars=5))
    target = tmp_path / "kept.md"
    proc = subprocess.Popen(
        cli.argv(("chat", "--model", "qwen3:8b", "--endpoint", fake_ollama.url), False),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli.env,
        cwd=cli.cwd,
    )
    assert proc.stdin is not None
    proc.stdin.write("写一个长的回答\n")
    proc.stdin.flush()
    lines = Lines(proc)
    wait_for(lambda: "句子3" in lines.text(), what="the answer streams")
    full_disk.fill()
    proc.stdin.write(f"/export {target}\n/exit\n")
    proc.stdin.close()
    assert proc.wait(60) == 0
    assert proc.stderr is not None
    err = proc.stderr.read()
    out = lines.join()
    assert "Traceback" not in err
    assert words.strip() in out  # printed anyway
    log = (cli.home / "logs" / "metona-tray.log").read_text(encoding="utf-8")
    assert "kept in memory" in log, log[-3000:]
    assert "could not be saved" in one_line(err, "[warning] This chat could not be saved")
    assert words.strip() in target.read_text(encoding="utf-8")  # and exported from memory
    assert "could not be saved" in one_line(err, "warning: this chat could not be saved")


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
