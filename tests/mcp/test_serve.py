"""``metona-tray mcp serve`` driven by the SDK's own client over stdio: this app's tools with
their sandbox, approval rules and chat record."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.mcp.conftest import ROOT


async def test_another_client_gets_the_guarded_tools(metona_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "读我 📄.txt").write_text("内容 \u202e ok\n", encoding="utf-8")
    (work / "keep.txt").write_text("keep\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    config = metona_home / "config" / "settings.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"allowed_dirs": [str(work)]}), encoding="utf-8")
    env = {
        "METONA_HOME": str(metona_home),
        "PYTHONPATH": str(ROOT),
        "HOME": os.environ.get("HOME", str(tmp_path)),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tray_app", "mcp", "serve", "--workspace", str(work), "--yes"],
        env=env,
    )
    async with Client(params) as client:
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert {"read_file", "write_file", "delete_file"} <= set(tools)
        assert "run_command" not in tools  # off in the settings
        assert tools["read_file"].annotations.read_only_hint is True
        assert tools["delete_file"].annotations.destructive_hint is True

        read = await client.call_tool("read_file", {"path": "读我 📄.txt"})
        assert read.is_error is False
        assert read.structured_content["content"] == "内容 \u202e ok\n"

        wrote = await client.call_tool("write_file", {"path": "new.md", "content": "# 新\n"})
        assert wrote.is_error is False, wrote.content
        assert (work / "new.md").read_text(encoding="utf-8") == "# 新\n"

        refused = await client.call_tool("delete_file", {"path": "keep.txt"})
        assert refused.is_error is True
        assert "--yes-all" in refused.content[0].text
        assert (work / "keep.txt").exists()

        sandboxed = await client.call_tool("read_file", {"path": str(outside)})
        assert sandboxed.is_error is True and "secret" not in sandboxed.content[0].text

    from tray_app.base.paths import AppPaths
    from tray_app.store.opening import open_chat_store

    chats = open_chat_store(AppPaths.under(metona_home))[0]
    try:
        sessions = [s for s in chats.list_sessions() if s.title == "MCP client"]
        assert len(sessions) == 1
        calls = [m for m in chats.messages(sessions[0].id) if m.role == "tool"]
        assert [m.tool_name for m in calls] == [
            "read_file",
            "write_file",
            "delete_file",
            "read_file",
        ]
    finally:
        chats.close()
    audit = (metona_home / "logs" / "audit.jsonl").read_text(encoding="utf-8")
    assert audit.count('"write_file"') >= 1
