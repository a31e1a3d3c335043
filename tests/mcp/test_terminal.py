"""``metona-tray chat`` with an MCP server configured, as a subprocess against fake Ollama: the
first turn waits for the server, the approval shows the server, the tool and the arguments
(invisible characters escaped), and the answer reaches the model."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.fakes.cli import on_a_terminal
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.conftest import ROOT, fake_entry


def test_a_terminal_chat_calls_an_mcp_tool_after_approval(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    config = metona_home / "config" / "settings.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"mcp_servers": {"fake": fake_entry(marks)}}), encoding="utf-8")
    target = "報告 \u202eexe.txt"
    fake_ollama.script(tool_turn([("fake__wipe", {"target": target})]), text_turn("Wiped."))
    env = dict(os.environ, METONA_HOME=str(metona_home), NO_COLOR="1", PYTHONPATH=str(ROOT))
    env.pop("DISPLAY", None)
    command = [sys.executable, "-m", "tray_app", "chat", "--model", "qwen3:8b"]
    with on_a_terminal([*command, "--endpoint", fake_ollama.url, "wipe the report"], env) as term:
        shown = term.read_until(b"Approve fake__wipe?", 60).decode("utf-8", "replace")
        assert not (marks / "wiped").exists()
        term.type("y\n")
        out, _ = term.proc.communicate(timeout=60)
    assert term.proc.returncode == 0
    assert "approval needed: fake__wipe (destructive)" in shown
    assert "MCP server fake: wipe (destructive)" in shown
    assert '"target": "報告 \\u202eexe.txt"' in shown  # shown escaped, never reversed
    assert "\u202e" not in shown
    assert (marks / "wiped").read_text(encoding="utf-8") == target
    assert b"Wiped." in out
    tools = [t["function"]["name"] for t in fake_ollama.chat_requests[0]["tools"]]
    assert "fake__wipe" in tools  # the first turn waited for the server
