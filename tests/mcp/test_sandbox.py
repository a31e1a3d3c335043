"""stdio servers under bubblewrap when the sandbox switch is on: the server runs, reads, and
cannot write outside its own folder; without bubblewrap it is not started at all."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.mcp.conftest import fake_entry
from tray_app.mcp import sandbox
from tray_app.mcp.config import parse_servers
from tray_app.mcp.manager import McpManager

needs_bwrap = pytest.mark.skipif(sandbox.bwrap_path() is None, reason="bubblewrap is not installed")


@needs_bwrap
def test_a_sandboxed_server_runs_but_cannot_write_outside_its_folder(
    tmp_path: Path, marks: Path
) -> None:
    manager = McpManager(log_dir=tmp_path / "logs", sandbox=lambda: True)
    try:
        servers, _ = parse_servers({"boxed": fake_entry(marks, network=False)})
        manager.configure(servers, wait=True)
        assert manager.wait_ready("boxed", 30), manager.snapshot()[0].error
        echo = manager.call("boxed", "echo", {"text": "inside"}, cancel=threading.Event())
        assert echo["content"][0]["text"] == "echo: inside"
        note = manager.call("boxed", "add_note", {"text": "x"}, cancel=threading.Event())
        assert note["isError"] is True  # the marks folder is read-only in the sandbox
        assert not (marks / "note").exists()
    finally:
        manager.stop()


def test_no_bubblewrap_means_the_server_is_not_started(
    tmp_path: Path, marks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    servers, _ = parse_servers({"boxed": fake_entry(marks)})
    with pytest.raises(RuntimeError, match="bubblewrap"):
        sandbox.contained_command(servers[0], enabled=True)
    assert sandbox.contained_command(servers[0], enabled=False)[1][:2] == [
        "-m",
        "tests.mcp.fake_server",
    ]
