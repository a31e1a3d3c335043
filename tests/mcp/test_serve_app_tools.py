"""``metona-tray mcp serve`` offers the running app's MCP servers' tools too.

The SDK's own client drives ``mcp serve`` as a real subprocess; the "app" is a headless Core
with the in-repo stdio MCP server configured (named in Chinese, offering a tool whose name and
10 KB description carry CJK, emoji, line breaks and U+202E), behind the real instance socket
with the app's own ``mcp_call`` host. The app names the tools (``server__tool``), describes and
bounds them, runs them and asks for them through its approvals; without the app only the
built-in tools are offered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.mcp.conftest import ROOT, fake_entry
from tests.mcp.fake_server import HOSTILE_TOOL
from tests.mcp.serve_rig import HeadlessApp, serve, until, write_settings
from tests.support.waiting import eventually

pytestmark = pytest.mark.timeout(180)

SERVER = "报告 服务"
SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@pytest.fixture
def work(tmp_path: Path, metona_home: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {"FAKE_MCP_MARKS": str(marks), "FAKE_MCP_HOSTILE": "1"}
    settings = {
        "allowed_dirs": [str(folder)],
        "confirmation_mode": "all_writes",
        "mcp_servers": {SERVER: fake_entry(marks, env=env)},
    }
    write_settings(metona_home, settings)
    return folder


@pytest.fixture
def app(metona_home: Path, work: Path) -> Iterator[HeadlessApp]:
    """The app's instance socket as desktop/app.py answers it, with its MCP servers started."""
    headless = HeadlessApp.start(metona_home, mcp="start", offer_tools=True)
    running = headless.running
    try:
        eventually(
            lambda: [s["status"] for s in running.core.mcp_status()] == ["ready"],
            90,
            "the app's MCP server ready",
        )
        yield headless
    finally:
        headless.quit()


def by_name(tools: list[Any]) -> dict[str, Any]:
    return {tool.name: tool for tool in tools}


async def test_the_apps_mcp_tools_are_offered_and_run_there_with_its_approvals(
    app: HeadlessApp, metona_home: Path, work: Path, tmp_path: Path, errlog: IO[str]
) -> None:
    core = app.running.core
    served = {tool["name"]: tool for tool in core.mcp_tools()}
    hostile = next(t for t in served.values() if t["description"].startswith(f"[{SERVER}] 第一行"))
    wipe = next(t for t in served.values() if t["name"].endswith("__wipe"))
    async with serve(metona_home, work, errlog) as client:
        listed = by_name((await client.list_tools()).tools)
        assert "read_file" in listed  # the built-in tools, as before
        for name, tool in served.items():  # and the app's, as it names and describes them
            assert SAFE_NAME.fullmatch(name), name
            assert listed[name].description == tool["description"]
        offered = listed[hostile["name"]]
        # The 10 KB description arrives bounded, its whitespace one space, as the app's model
        # is shown it; the name is the app's safe one, never the server's raw text.
        assert len(offered.description or "") <= 2_100
        assert (offered.description or "").startswith(
            f"[{SERVER}] 第一行：读取报告 📄 第二行 \u202eevil.exe 长文本"
        )
        assert HOSTILE_TOOL not in listed
        # Untrusted read-only hint: the app asks like a write; no annotations: destructive.
        assert offered.annotations is not None and offered.annotations.read_only_hint is False
        assert listed[wipe["name"]].annotations.destructive_hint is True  # type: ignore[union-attr]

        text = "日本語 🌍 \u202eevil"
        call = asyncio.create_task(client.call_tool(hostile["name"], {"text": text}))
        pending = await until(app.pending, "the call to wait for the person in the app")
        assert pending[0]["name"] == hostile["name"]
        assert pending[0]["arguments"] == {"text": text}
        core.decide(pending[0]["call_id"], True, by="notification")
        ran = await call
        assert ran.is_error is False, ran.content
        assert f"hostile: {text}" in json.dumps(ran.structured_content, ensure_ascii=False)

        call = asyncio.create_task(client.call_tool(wipe["name"], {"target": "全部 🗑"}))
        pending = await until(app.pending, "the destructive call to wait in the app")
        core.decide(pending[0]["call_id"], False, by="popup")
        denied = await call
        assert denied.is_error is True
        assert not (tmp_path / "marks" / "wiped").exists()  # the server never ran it

        sessions = [s for s in core.list_sessions() if s["title"] == "MCP client"]
        calls = core.get_session(sessions[0]["id"])["tool_calls"]
        assert [(c["name"], c["decided_by"]) for c in calls] == [
            (hostile["name"], "notification"),
            (wipe["name"], "popup"),
        ]

        app.quit()  # the app's MCP tools cannot run anywhere else
        gone = await client.call_tool(hostile["name"], {"text": "再见"})
        assert gone.is_error is True
        assert "only the running Metona Tray can run it" in json.dumps(
            gone.structured_content, ensure_ascii=False
        )
        after = by_name((await client.list_tools()).tools)
        assert "read_file" in after and hostile["name"] not in after


async def test_without_the_app_only_the_built_in_tools_are_offered(
    metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    async with serve(metona_home, work, errlog) as client:
        listed = by_name((await client.list_tools()).tools)
        assert "read_file" in listed
        assert not any("__" in name for name in listed)
        unknown = await client.call_tool("u62a5_e5918a__x", {})
        assert unknown.is_error is True and "unknown tool" in str(unknown.content)


def serve_without_polling(metona_home: Path, work: Path) -> StdioServerParameters:
    """``mcp serve`` as a subprocess whose look at the app every ``POLL_S`` comes only after an
    hour: what it tells its client within a test, the app pushed (``mcp_watch``)."""
    argv = ["metona-tray", "mcp", "serve", "--workspace", str(work)]
    code = (
        "import runpy, sys; import tray_app.cli.mcp_serve_changes as changes; "
        f"changes.POLL_S = 3600.0; sys.argv = {argv!r}; "
        "runpy.run_module('tray_app', run_name='__main__')"
    )
    env = {"METONA_HOME": str(metona_home), "PYTHONPATH": str(ROOT), "HOME": str(metona_home)}
    return StdioServerParameters(command=sys.executable, args=["-c", code], env=env)


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # handshake era; 2026 era where offered
async def test_the_app_tells_serve_at_once_when_its_tools_change_and_when_it_quits(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str], mode: str
) -> None:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    told: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            told.put_nowait("tools/list_changed")

    async def heard() -> str:
        return await asyncio.wait_for(told.get(), 90)

    params = serve_without_polling(metona_home, work)
    async with Client(
        stdio_client(params, errlog=errlog), mode=mode, message_handler=on_message
    ) as client:
        before = by_name((await client.list_tools()).tools)
        assert not any(name.endswith("__late") for name in before)
        assert any(name.endswith("__wipe") for name in before)  # the app's tools
        async with contextlib.AsyncExitStack() as stack:
            if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                sub = await stack.enter_async_context(client.listen(tools_list_changed=True))

                async def follow() -> None:
                    async for _event in sub:
                        told.put_nowait("tools/list_changed")

                following = asyncio.create_task(follow())
                stack.callback(following.cancel)
            manager = app.running.core._mcp.manager
            assert manager is not None  # the app's server lists a new tool
            grown = await asyncio.to_thread(
                manager.call, SERVER, "grow", {}, cancel=threading.Event()
            )
            assert grown["isError"] is False
            assert await heard() == "tools/list_changed"  # pushed: the poll is an hour away
            after = by_name((await client.list_tools()).tools)
            late = [name for name in after if name.endswith("__late")]
            assert len(late) == 1 and SAFE_NAME.fullmatch(late[0])
            assert set(before) < set(after)

            app.quit()  # the watch ends with the app: its tools are gone, and serve says so
            assert await heard() == "tools/list_changed"
        gone = by_name((await client.list_tools()).tools)
        assert "read_file" in gone and not any("__" in name for name in gone)


async def test_serve_ending_ends_its_watch_in_the_app(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    """The app keeps no listener and no thread for a ``mcp serve`` that has gone."""
    bus = app.running.core.bus
    alone = len(bus._subscribers)
    async with Client(stdio_client(serve_without_polling(metona_home, work), errlog=errlog)):
        await until(lambda: len(bus._subscribers) == alone + 1, "serve to watch the app")
    await until(lambda: len(bus._subscribers) == alone, "the app to drop the watch")

    def answering() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "metona-instance-conn"]

    await until(lambda: not answering(), "the app's watch thread to end")


def test_help_says_which_tools_are_offered() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    shown = subprocess.run(
        [sys.executable, "-m", "tray_app", "mcp", "serve", "--help"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert "server__tool" in " ".join(shown.split())
    assert "only the built-in tools are offered" in " ".join(shown.split())
