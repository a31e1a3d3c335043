"""The terminal chat when its data folder fills up while an answer streams, run as a user runs
it: a small tmpfs on METONA_HOME/data in a mount namespace (root only, skipped otherwise).

``metona-tray`` is a real subprocess against the fake Ollama server
(``tests.support.terminal_rig``).
Every stderr is checked for tracebacks.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import slow_turn
from tests.support.terminal_rig import Cli, needs_mounts, one_line
from tests.support.waiting import eventually


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
    eventually(lambda: "content_delta" in out.text(), message="the answer streams")
    full_disk.fill()
    eventually(lambda: "history_not_saved" in out.text(), message="a notice that it is not saved")
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
    eventually(lambda: "句子3" in lines.text(), message="the answer streams")
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
