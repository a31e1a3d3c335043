"""Two ``metona-tray chat`` processes on one data folder, killed with SIGKILL again and again.

Each lane runs multi-round write turns (two files per round: one new, one rewritten) against a
fake Ollama that answers by the request, so parallel chats never take each other's answers.
Most runs are killed at a random moment; meanwhile a third lane keeps running
``metona-tray changes --json`` (each start sweeps the journal folder while the chats write).
Afterwards every change any process recorded is listed and can be undone, and undoing them all
brings the workspace back byte for byte.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import Turn, text_turn, tool_turn
from tests.support.waiting import eventually
from tray_app.base.paths import AppPaths
from tray_app.store.settings import Settings, save_settings
from tray_app.tools.journal.journal import Journal

NOTHING = {"success": False, "error": "nothing to undo", "code": "undo_nothing", "params": {}}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

REPO = Path(__file__).resolve().parents[2]
ROUNDS = 3
RUNS = 5
LANES = ("甲", "乙")


def new_name(tag: str, rnd: int) -> str:
    return f"{tag} r{rnd} 新 🆕.txt"


def old_name(tag: str, rnd: int) -> str:
    return f"{tag} r{rnd} 旧 📄.txt"


class PlannedOllama(FakeOllama):
    """Answers from the request itself: the user message names the run ("run 甲3"); each
    round writes that round's two files, and after ``ROUNDS`` rounds the model answers."""

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()

    def _chat(self, body: dict[str, Any], reply: Any) -> None:
        self._local.turn = self.plan(body)
        super()._chat(body, reply)

    def next_turn(self) -> Turn | None:
        turn: Turn | None = getattr(self._local, "turn", None)
        return turn

    @staticmethod
    def plan(body: dict[str, Any]) -> Turn:
        messages = body.get("messages", [])
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        match = re.search(r"run (\S+)", messages[last_user]["content"])
        assert match, messages[last_user]
        tag = match.group(1)
        rnd = sum(1 for m in messages[last_user:] if m["role"] == "assistant")
        if rnd >= ROUNDS:
            return text_turn(f"{tag} 完成 ✅")
        calls = [
            ("write_file", {"path": new_name(tag, rnd), "content": f"{tag} 新 {rnd} 🆕\n" * 200}),
            ("write_file", {"path": old_name(tag, rnd), "content": f"{tag} 改 {rnd} ✏️\n"}),
        ]
        return tool_turn(calls, content=f"round {rnd} ", chunk_chars=8, delay=0.01)


def snapshot(folder: Path) -> dict[str, bytes]:
    """The workspace's files, without the temp files a write killed midway leaves."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.startswith(".metona-")}


def test_kill_loop_keeps_every_recorded_change_undoable(
    metona_home: Path, app_paths: AppPaths, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for lane in LANES:
        for run in range(RUNS):
            for rnd in range(ROUNDS):
                (work / old_name(f"{lane}{run}", rnd)).write_text(f"原文 {lane}{run}{rnd}\n")
    before = snapshot(work)
    save_settings(Settings(allowed_dirs=[str(work)]), app_paths.settings_file)
    user = tmp_path / "user"
    user.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update(METONA_HOME=str(metona_home), HOME=str(user), NO_COLOR="1", PYTHONPATH=str(REPO))
    env.pop("DISPLAY", None)
    problems: list[str] = []
    kills = {"killed": 0, "finished": 0}
    stop = threading.Event()

    def cli(*args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "tray_app", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )

    journal_db = app_paths.journal_dir / "journal.sqlite3"

    def under_way(proc: subprocess.Popen[str], rng: random.Random) -> bool:
        """Wait until ``proc`` has a pending journal entry (a change it is making), then a
        moment more; False if it ended first."""

        def pending() -> bool:
            try:
                conn = sqlite3.connect(f"file:{journal_db}?mode=ro", uri=True, timeout=0.2)
                try:
                    owners = conn.execute(
                        "SELECT owner FROM entries WHERE state = 'pending'"
                    ).fetchall()
                finally:
                    conn.close()
            except sqlite3.Error:
                owners = []
            return any(str(o[0]).startswith(f"{proc.pid}:") for o in owners)

        try:
            eventually(
                lambda: proc.poll() is not None or pending(),
                60,
                "a pending change of the chat, or its end",
                interval=0.005,
            )
        except AssertionError:  # no change under way within a minute: let this run finish
            return False
        if proc.poll() is not None:
            return False
        time.sleep(rng.uniform(0, 0.03))  # somewhere in the copy, the write or commit
        return proc.poll() is None

    def lane(name: str, fake: PlannedOllama, seed: int) -> None:
        rng = random.Random(seed)
        for run in range(RUNS):
            proc = cli(
                "chat",
                "--json",
                "--yes",
                "--model",
                "qwen3:8b",
                "--endpoint",
                fake.url,
                "--workspace",
                str(work),
                f"please run {name}{run}",
            )
            if run == RUNS - 1:
                kill_after: float | None = None
            elif run % 2:  # the moment a change is under way: between record and commit
                kill_after = None
                if under_way(proc, rng):
                    proc.send_signal(signal.SIGKILL)
                    proc.communicate(timeout=30)
                    kills["killed"] += 1
                    continue
            else:
                kill_after = rng.uniform(1.0, 4.0)
            try:
                _, err = proc.communicate(timeout=kill_after)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.communicate(timeout=30)
                kills["killed"] += 1
                continue
            kills["finished"] += 1
            if proc.returncode != 0 or "Traceback" in err:
                problems.append(f"{name}{run}: exit {proc.returncode}: {err[-2000:]}")

    def lister() -> None:
        while not stop.is_set():
            proc = cli("changes", "--json")
            out, err = proc.communicate(timeout=60)
            if proc.returncode != 0 or "Traceback" in err:
                problems.append(f"changes: exit {proc.returncode}: {err[-2000:]}")
                return
            json.loads(out)

    with PlannedOllama() as fake:
        threads = [
            threading.Thread(target=lane, args=(name, fake, 1000 + i))
            for i, name in enumerate(LANES)
        ]
        watcher = threading.Thread(target=lister)
        for thread in [*threads, watcher]:
            thread.start()
        for thread in threads:
            thread.join(timeout=600)
        stop.set()
        watcher.join(timeout=120)
    assert not problems, problems
    assert kills["finished"] >= len(LANES)

    journal = Journal(app_paths.journal_dir)  # the next start: sweeps what the kills left
    assert journal._open().read("WHERE state = 'pending'") == []
    entries = journal.entries()
    logs = "".join(p.read_text(errors="replace") for p in app_paths.log_dir.glob("*.log*"))
    kept = logs.count("was cut off after the change; kept")
    print(f"kills={kills} entries={len(entries)} cut-off-kept={kept}")  # with -s: what it did
    assert entries, "no change was recorded at all"
    assert all(e["undoable"] for e in entries), [e for e in entries if not e["undoable"]]

    # Every write the chats stored as done is in the journal (the journal commits first).
    conn = sqlite3.connect(f"file:{app_paths.database_file}?mode=ro", uri=True)
    done = {
        row[0]
        for row in conn.execute(
            "SELECT call_id FROM tool_calls WHERE name = 'write_file' AND status = 'success'"
        )
    }
    conn.close()
    assert done and done <= {e["call_id"] for e in entries}
    changed_now = snapshot(work)
    assert changed_now != before

    results = [journal.undo_last() for _ in range(len(entries) + 1)]
    assert all(r["success"] for r in results[:-1]), [r for r in results if not r["success"]]
    assert results[-1] == NOTHING
    assert snapshot(work) == before
