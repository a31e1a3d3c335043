"""Running ``crash_writer`` in a child process and reading its reports with timeouts."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class Child:
    """A ``python -m tests.store.crash_writer PATH MODE`` process; stdout lines in a queue."""

    def __init__(self, path: Path, mode: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.store.crash_writer", str(path), mode],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, accept: Callable[[str], bool], timeout: float = 30) -> str:
        """Collect lines until one is accepted; fail with the child's stderr on EOF/timeout."""
        while True:
            try:
                line = self._queue.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no matching line within {timeout}s") from None
            if line is None:
                raise AssertionError(f"child ended early: {self._stderr()}")
            self.lines.append(line)
            if accept(line):
                return line

    def kill(self) -> list[str]:
        """SIGKILL (TerminateProcess on Windows), then every line it had already written."""
        self.proc.kill()
        self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        while True:
            line = self._queue.get_nowait() if not self._queue.empty() else None
            if line is None:
                break
            self.lines.append(line)
        return self.lines

    def finish(self, timeout: float = 30) -> list[str]:
        """Close stdin and wait for a normal exit."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=timeout)
        while not self._queue.empty():
            line = self._queue.get_nowait()
            if line is not None:
                self.lines.append(line)
        return self.lines

    def _stderr(self) -> str:
        self.proc.kill()
        self.proc.wait(timeout=30)
        assert self.proc.stderr is not None
        return self.proc.stderr.read()[-2000:]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
