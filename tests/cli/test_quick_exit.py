"""A finished terminal command ends without the interpreter's teardown
(``tray_app.cli.quick_exit``), and still does everything an exit must: the real CLI as a
subprocess against fake Ollama, with a ``sitecustomize`` that records whether ``atexit`` ran and
whether the modules were torn down.
Speed itself is measured by ``make bench``."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn

REPO = Path(__file__).resolve().parents[2]
PROMPT = "总结一下 🙂 \u202eevil.txt\u202c " + "長" * 3000
ANSWER = "好的 🙂 — \u202e done \u202c, 完成。" * 200

#: Loaded by every interpreter that has this folder on its path: an ``atexit`` handler, and an
#: object whose ``__del__`` only runs when the interpreter clears the modules at its teardown.
SITECUSTOMIZE = """
import atexit, os
_fd = os.open(os.environ["EXIT_MARKS"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
atexit.register(lambda: os.write(_fd, b"atexit;"))
class _TornDown:
    def __del__(self, _write=os.write, _fd=_fd):
        _write(_fd, b"teardown;")
_witness = _TornDown()
"""


def cli_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    marks = tmp_path / "marks"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update(
        METONA_HOME=str(tmp_path / "家 home 🙂"),
        PYTHONPATH=os.pathsep.join([str(site), str(REPO)]),
        EXIT_MARKS=str(marks),
        NO_COLOR="1",
    )
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env, marks


def test_the_witness_sees_a_normal_interpreter_exit(tmp_path: Path) -> None:
    """The harness itself: a plain interpreter exit runs atexit and tears the modules down."""
    env, marks = cli_env(tmp_path)
    done = subprocess.run([sys.executable, "-c", "pass"], env=env, timeout=60, check=False)
    assert done.returncode == 0
    assert marks.read_bytes() == b"atexit;teardown;"


def test_a_one_shot_chat_ends_without_teardown_and_keeps_everything(tmp_path: Path) -> None:
    env, marks = cli_env(tmp_path)
    with FakeOllama(default_turn=text_turn(ANSWER, chunk_chars=7)) as fake:
        flags = ["--json", "--endpoint", fake.url, "--model", "llama3.2"]
        done = subprocess.run(
            [sys.executable, "-m", "tray_app", "chat", *flags, PROMPT],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            timeout=120,
            check=False,
        )
        asked = fake.chat_requests
    assert done.returncode == 0, done.stderr[-3000:]
    assert asked[-1]["messages"][-1]["content"] == PROMPT
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert "".join(e["text"] for e in events if e["type"] == "content_delta") == ANSWER
    assert events[-1]["type"] == "turn_finished"  # the last buffered line was flushed
    # atexit ran (logging's final flush is one of its handlers); the teardown did not.
    assert marks.read_bytes() == b"atexit;"
    home = Path(env["METONA_HOME"])
    log = (home / "logs" / "metona-tray.log").read_text(encoding="utf-8")
    assert "/api/chat" in log
    # The store was closed: no owner mark left, and the chat is whole in the file.
    assert list((home / "data" / "owners").glob("*.lock")) == []
    conn = sqlite3.connect(home / "data" / "chats.sqlite3")
    try:
        stored = conn.execute("SELECT role, content, stats FROM messages ORDER BY seq").fetchall()
    finally:
        conn.close()
    assert [(role, content) for role, content, _ in stored] == [
        ("user", PROMPT),
        ("assistant", ANSWER),
    ]
    assert "streaming" not in stored[-1][2]


def test_a_thread_still_running_keeps_the_normal_exit(tmp_path: Path) -> None:
    """A non-daemon thread is waited for, as the interpreter always did: here it can only
    finish once ``end_process`` has chosen the normal exit, and it then writes its file."""
    env, marks = cli_env(tmp_path)
    finished = tmp_path / "线程 finished 🙂"
    script = textwrap.dedent(
        f"""
        import threading
        from pathlib import Path
        from tray_app.cli.quick_exit import end_process
        release = threading.Event()
        def work():
            if release.wait(60):
                Path({str(finished)!r}).write_text("写完 ✅", encoding="utf-8")
        threading.Thread(target=work).start()
        try:
            end_process(3)
        except SystemExit:
            release.set()
            raise
        """
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=120, check=False)
    assert done.returncode == 3
    assert finished.read_text(encoding="utf-8") == "写完 ✅"
    assert marks.read_bytes() == b"atexit;teardown;"


def test_a_reader_gone_before_the_last_flush_ends_quietly_with_141(tmp_path: Path) -> None:
    env, marks = cli_env(tmp_path)
    script = (
        "import sys\n"
        "from tray_app.cli.quick_exit import end_process\n"
        "sys.stdout.write('最后一行 🙂 \\u202e\\n')\n"  # still in the buffer
        "end_process(0)\n"
    )
    env = {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"}  # keep the line buffered
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `| head -1` that has already exited
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env={**env, "PYTHONIOENCODING": "utf-8"},
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr, done.stderr
    assert marks.read_bytes() == b"atexit;"
