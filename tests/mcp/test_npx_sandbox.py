"""npm servers under the bubblewrap sandbox: ``~`` is read-only there, so ``npx`` gets a private
writable cache per server under the app's cache folder. Offline throughout: a dependency-free
package packed from tests/mcp/npx_server (npx must unpack it into its cache to run it), and
the registry's filesystem server that scripts/install-test-deps.sh installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import NPM_CACHE, filesystem_server
from tests.support.waiting import eventually
from tray_app.mcp import sandbox
from tray_app.mcp.config import parse_servers
from tray_app.mcp.manager import McpManager

HERE = Path(__file__).resolve().parent
NPX = shutil.which("npx", path=sandbox.SYSTEM_BIN_PATH)

pytestmark = [
    pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed"),
    pytest.mark.skipif(NPX is None or shutil.which("npm") is None, reason="npm is not installed"),
]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The server's folder (its cwd: writable in the sandbox), with the test package packed."""
    folder = tmp_path / "work 工作"
    folder.mkdir()
    subprocess.run(
        ["npm", "pack", "--silent", "--pack-destination", str(folder), str(HERE / "npx_server")],
        check=True,
        capture_output=True,
        env={**os.environ, "npm_config_cache": str(tmp_path / "pack-cache")},
        timeout=120,
    )
    return folder


def npx_entry(work: Path) -> dict[str, Any]:
    """What a user writes for an npm server, offline: ``npx -y`` of a package npx must unpack."""
    tarball = next(work.glob("metona-test-npx-server-*.tgz"))
    return {
        "command": NPX,
        "args": ["-y", "--offline", f"--package={tarball}", "metona-test-npx-server"],
        "cwd": str(work),
        "network": False,
        "timeout_s": 60,
    }


def start(tmp_path: Path, entry: dict[str, Any], *, private: bool) -> McpManager:
    root = tmp_path / "app-cache" / "mcp" if private else None
    manager = McpManager(log_dir=tmp_path / "logs", sandbox=lambda: True, private_root=root)
    servers, errors = parse_servers({"npm 服务": entry})
    assert errors == {}
    manager.configure(servers, wait=True)
    return manager


def test_npx_runs_a_package_under_the_sandbox_with_a_private_cache(
    tmp_path: Path, work: Path
) -> None:
    manager = start(tmp_path, npx_entry(work), private=True)
    try:
        assert manager.wait_ready("npm 服务", 90), manager.snapshot()[0].error
        answer = manager.call("npm 服务", "whereami", {}, cancel=threading.Event())
        facts = json.loads(answer["content"][0]["text"])
        private = tmp_path / "app-cache" / "mcp"
        (folder,) = private.iterdir()  # one folder for this server, named after it
        assert folder.name.startswith("npm_服务-")
        assert facts["npm_cache"] == str(folder / "npm")
        assert facts["script"].startswith(str(folder / "npm" / "_npx"))  # unpacked there
        assert facts["home_writable"] is False  # the rest of the sandbox still holds
        assert oct(folder.stat().st_mode & 0o777) == "0o700"
    finally:
        manager.stop()


def test_without_a_private_cache_npx_cannot_unpack_and_says_so(tmp_path: Path, work: Path) -> None:
    """What happened before: ~/.npm read-only in the sandbox, so the server never started."""
    manager = start(tmp_path, npx_entry(work), private=False)
    try:
        eventually(lambda: manager.snapshot()[0].status == "failed", 90, "the server to fail")
        log = (tmp_path / "logs" / "mcp-npm_服务.log").read_text(encoding="utf-8")
        assert "EROFS" in log or "rofs" in log
    finally:
        manager.stop()


def test_the_registry_filesystem_server_under_the_sandbox(tmp_path: Path, work: Path) -> None:
    filesystem_server()  # skips when install-test-deps.sh could not install it
    entry = {
        "command": NPX,
        "args": ["--offline", "--prefix", str(NPM_CACHE), "mcp-server-filesystem", str(work)],
        "cwd": str(work),
        "network": False,
    }
    (work / "读我.txt").write_text("你好 🌍 \u202eabc", encoding="utf-8")
    manager = start(tmp_path, entry, private=True)
    try:
        assert manager.wait_ready("npm 服务", 90), manager.snapshot()[0].error
        call = manager.call
        listed = call("npm 服务", "list_directory", {"path": str(work)}, cancel=threading.Event())
        assert "读我.txt" in listed["content"][0]["text"]
        read = call(
            "npm 服务", "read_text_file", {"path": str(work / "读我.txt")}, cancel=threading.Event()
        )
        assert read["content"][0]["text"] == "你好 🌍 \u202eabc"
        wrote = call(
            "npm 服务",
            "write_file",
            {"path": str(work / "新.txt"), "content": "写入 ✓"},
            cancel=threading.Event(),
        )
        assert wrote.get("isError") is not True, wrote
        assert (work / "新.txt").read_text(encoding="utf-8") == "写入 ✓"
        # npm itself had somewhere to write: its log is in the server's private cache.
        (folder,) = (tmp_path / "app-cache" / "mcp").iterdir()
        assert list((folder / "npm" / "_logs").glob("*.log"))
    finally:
        manager.stop()
