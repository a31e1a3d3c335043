"""The fixture that starts ``tests/mcp/fake_http_server.py`` as a real subprocess on 127.0.0.1
(``serve(MODE)``), shared by the MCP and the web tests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.mcp.conftest import ROOT
from tests.support.waiting import eventually

SERVE_WAIT = 60.0  # a loaded CI machine imports the SDK and uvicorn slowly


class Served:
    def __init__(self, url: str, marks: Path, process: subprocess.Popen[bytes]) -> None:
        self.url = url
        self.marks = marks
        self.process = process

    def requests(self) -> list[str]:
        log = self.marks / "requests"
        return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """Start ``tests/mcp/fake_http_server.py MODE`` and wait until it listens."""
    running: list[subprocess.Popen[bytes]] = []

    def start(mode: str, *extra: str) -> Served:
        marks = tmp_path / f"marks-{mode}-{len(running)}"
        marks.mkdir()
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.mcp.fake_http_server", mode, str(marks), *extra],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=(marks / "stderr").open("wb"),
        )
        running.append(proc)
        port = eventually(
            lambda: (marks / "port").exists() and (marks / "port").read_text(),
            SERVE_WAIT,
            f"the {mode} server to listen",
        )
        path = {"http": "/mcp", "sse": "/sse"}.get(mode, "/mcp")
        return Served(f"http://127.0.0.1:{port}{path}", marks, proc)

    yield start
    for proc in running:
        proc.terminate()
    for proc in running:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
