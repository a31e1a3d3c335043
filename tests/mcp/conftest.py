"""The in-repo MCP server as a configured server, and a manager that is always stopped."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tray_app.mcp.config import ServerConfig, parse_servers
from tray_app.mcp.manager import McpManager

ROOT = Path(__file__).resolve().parents[2]


def fake_entry(marks: Path, **extra: Any) -> dict[str, Any]:
    """A Claude Desktop style entry that starts tests/mcp/fake_server.py over stdio."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcp.fake_server"],
        "cwd": str(ROOT),
        "env": {"FAKE_MCP_MARKS": str(marks)},
        **extra,
    }


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    folder = tmp_path / "marks"
    folder.mkdir()
    return folder


@pytest.fixture
def fake_config(marks: Path) -> ServerConfig:
    servers, errors = parse_servers({"fake": fake_entry(marks)})
    assert errors == {}
    return servers[0]


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[McpManager]:
    made = McpManager(log_dir=tmp_path / "logs", roots=lambda: [str(tmp_path)])
    yield made
    made.stop()


NPM_CACHE = Path(
    os.environ.get("METONA_TEST_NPM_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "metona-tray-tests/npm"
)
FS_SERVER = NPM_CACHE / "node_modules" / ".bin" / "mcp-server-filesystem"


def filesystem_server() -> Path:
    """The npm filesystem server scripts/install-test-deps.sh installed (skip when absent)."""
    if not os.access(FS_SERVER, os.X_OK):
        pytest.skip(f"{FS_SERVER} is missing: run scripts/install-test-deps.sh (needs npm)")
    return FS_SERVER


def time_server_entry() -> dict[str, Any]:
    """mcp-server-time from the test extra, in this interpreter."""
    return {
        "command": sys.executable,
        "args": ["-m", "mcp_server_time", "--local-timezone", "Asia/Shanghai"],
    }


def processes_running(needle: str) -> list[int]:
    """Descendants of this test process whose command line contains ``needle``."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])

    def below_us(pid: int) -> bool:
        seen = 0
        while pid > 1 and seen < 64:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
            seen += 1
        return False

    found = []
    for pid in parents:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle.encode() in cmdline and state != "Z" and below_us(pid):
            found.append(pid)
    return found


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[IO[str]]:
    """Where `mcp serve` writes its stderr (the SDK hands it a real file)."""
    with open(tmp_path / "serve.err", "w", encoding="utf-8") as handle:
        yield handle


@pytest.fixture
def app(metona_home: Path, work: Path) -> Iterator[Any]:
    """The running app of tests.mcp.serve_rig, without MCP servers or tool offers, over the
    test module's own ``work`` fixture (its folder and settings)."""
    from tests.mcp.serve_rig import HeadlessApp

    headless = HeadlessApp.start(metona_home, mcp="off", offer_tools=False)
    try:
        yield headless
    finally:
        headless.quit()
