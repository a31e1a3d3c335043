"""``metona-tray mcp serve`` asks through the real desktop app.

The SDK's MCP client drives ``mcp serve`` as a subprocess while the app runs under Xvfb with the
recording notification server: a call that needs approval is announced by a notification with
Approve / Deny and shown as a card in the popup naming the "MCP client" chat, like the app's own
calls; the app's Core runs it (one writer), so it is undoable there; quitting the app mid-call
fails the call cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.e2e.desktop_env import ROOT, AppProcess, DesktopEnv, wait_for
from tests.e2e.test_popup_process import click_in_page, shown

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]

T = TypeVar("T")
NAME = "报告 \u202etxt.exe 📄.md"  # CJK, a bidi override and an emoji in one file name


@contextlib.asynccontextmanager
async def serve(
    app: AppProcess, workspace: Path, errlog: IO[str], *flags: str
) -> AsyncIterator[Client]:
    env = {k: v for k, v in app.env.items() if k != "METONA_TEST_HOOKS"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tray_app", "mcp", "serve", "--workspace", str(workspace), *flags],
        env=env,
        cwd=str(ROOT),
    )
    async with Client(stdio_client(params, errlog=errlog)) as client:
        yield client


async def until(check: Callable[[], T], what: str, timeout: float = 60.0) -> T:
    """Wait on a condition without blocking the loop the MCP client runs on."""
    return await asyncio.to_thread(wait_for, check, timeout, what)


def asking(desktop: DesktopEnv, needle: str) -> list[dict[str, Any]]:
    return [n for n in desktop.notifications() if needle in n["body"] and n["actions"]]


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[IO[str]]:
    with open(tmp_path / "serve.err", "w", encoding="utf-8") as handle:
        yield handle


async def test_a_write_from_another_client_is_approved_from_the_notification_and_undoes(
    desktop: DesktopEnv, app: AppProcess, workspace: Path, errlog: IO[str], tmp_path: Path
) -> None:
    async with serve(app, workspace, errlog) as client:
        call = asyncio.create_task(
            client.call_tool("write_file", {"path": NAME, "content": "新内容 ✓\n"})
        )
        note = (await until(lambda: asking(desktop, "报告"), "the approval notification"))[0]
        assert note["summary"] == "Allow “Write file”?"
        assert note["body"].startswith(f"{workspace}/报告 ⟨U+202E⟩txt.exe 📄.md\n")
        assert note["actions"]["approve"] == "Approve" and note["actions"]["deny"] == "Deny"
        assert not (workspace / NAME).exists()
        await until(lambda: app.state()["notified"], "the app to wire the buttons")
        desktop.invoke(int(note["id"]), "approve")
        wrote = await asyncio.wait_for(call, 60)
        assert wrote.is_error is False, wrote.content
        assert (workspace / NAME).read_text(encoding="utf-8") == "新内容 ✓\n"
    assert "running Metona Tray" in (tmp_path / "serve.err").read_text(encoding="utf-8")

    sessions = [s for s in app.core("list_sessions") if s["title"] == "MCP client"]
    assert len(sessions) == 1
    calls = app.core("get_session", sessions[0]["id"])["tool_calls"]
    assert [(c["name"], c["status"], c["decided_by"]) for c in calls] == [
        ("write_file", "success", "notification")
    ]
    app.core("undo", calls[0]["call_id"])  # the app's own journal has the change
    assert not (workspace / NAME).exists()


async def test_the_popup_shows_the_card_of_the_mcp_client_chat_and_deny_is_a_tool_error(
    desktop: DesktopEnv, app: AppProcess, workspace: Path, errlog: IO[str]
) -> None:
    (workspace / "留着.txt").write_text("keep\n", encoding="utf-8")
    await asyncio.to_thread(shown, desktop, app)
    async with serve(app, workspace, errlog) as client:
        call = asyncio.create_task(client.call_tool("delete_file", {"path": "留着.txt"}))
        chat = await until(
            lambda: app.eval_js(
                "(function () { const a = document.querySelector('#approval');"
                " return a && !a.hidden ? a.textContent : null; })()"
            ),
            "the approval card in the popup",
        )
        assert "MCP client" in chat and "留着.txt" in chat
        await asyncio.to_thread(
            click_in_page, desktop, app, '#approval button[data-decision="deny"]'
        )
        refused = await asyncio.wait_for(call, 60)
    assert refused.is_error is True
    assert "denied" in refused.content[0].text
    assert (workspace / "留着.txt").read_text(encoding="utf-8") == "keep\n"


async def test_quitting_the_app_mid_call_fails_the_call_cleanly(
    desktop: DesktopEnv, app: AppProcess, workspace: Path, errlog: IO[str], tmp_path: Path
) -> None:
    async with serve(app, workspace, errlog) as client:
        call = asyncio.create_task(
            client.call_tool("write_file", {"path": "晚.md", "content": "x"})
        )
        await until(lambda: app.core("pending_approvals"), "the write to wait in the app")
        app.send("quit")
        failed = await asyncio.wait_for(call, 60)
        assert failed.is_error is True
        assert "Metona Tray quit" in failed.content[0].text
        assert app.child is not None
        await until(lambda: app.child.popen.poll() is not None, "the app to end")
        # Without the app, reads keep working and a write says how to have it approved.
        (workspace / "读我.txt").write_text("你好\n", encoding="utf-8")
        read = await client.call_tool("read_file", {"path": "读我.txt"})
        assert read.is_error is False and read.structured_content["content"] == "你好\n"
        refused = await client.call_tool("write_file", {"path": "晚.md", "content": "x"})
        assert refused.is_error is True and "Open Metona Tray" in refused.content[0].text
    assert not (workspace / "晚.md").exists()
    assert "not running" in (tmp_path / "serve.err").read_text(encoding="utf-8")


async def test_yes_all_deletes_without_a_notification_and_the_app_can_undo_it(
    desktop: DesktopEnv, app: AppProcess, workspace: Path, errlog: IO[str]
) -> None:
    """The flag approves before anything is published: no notification flashes for the
    delete. A later call without the flag is the barrier: once its notification shows, one
    for the delete (published earlier, handled in order) would have shown before it."""
    gone = "删我 \u202etxt.exe 🗑.md"  # a name no other test's notification carries
    (workspace / gone).write_text("旧\n", encoding="utf-8")
    async with serve(app, workspace, errlog, "--yes-all") as client:
        deleted = await client.call_tool("delete_file", {"path": gone})
    assert deleted.is_error is False, deleted.content
    assert not (workspace / gone).exists()
    async with serve(app, workspace, errlog) as client:
        call = asyncio.create_task(
            client.call_tool("write_file", {"path": "屏障.md", "content": "x"})
        )
        await until(lambda: asking(desktop, "屏障.md"), "the asked write's notification")
        assert [n["body"] for n in desktop.notifications() if "删我" in n["body"]] == []
        [pending] = app.core("pending_approvals")
        app.core("decide", pending["call_id"], False, by="popup")
        assert (await asyncio.wait_for(call, 60)).is_error is True

    chats = [s["id"] for s in app.core("list_sessions") if s["title"] == "MCP client"]
    calls = [c for chat in chats for c in app.core("get_session", chat)["tool_calls"]]
    [delete] = [c for c in calls if c["name"] == "delete_file"]
    assert (delete["decision"], delete["decided_by"]) == ("approved", "mcp_flag")
    app.core("undo", delete["call_id"])
    assert (workspace / gone).read_text(encoding="utf-8") == "旧\n"


async def test_the_apps_mcp_servers_tools_are_offered_and_asked_for_in_the_app(
    desktop: DesktopEnv, app: AppProcess, workspace: Path, errlog: IO[str], tmp_path: Path
) -> None:
    """The real app answers ``mcp_tools``: a client of ``mcp serve`` sees the tools of the MCP
    server configured in the app (its hostile tool under the app's safe name) and a call to one
    is asked for by the app's notification, then run by the app's connection to that server."""
    from tests.mcp.conftest import fake_entry

    marks = tmp_path / "marks"
    marks.mkdir()
    env = {"FAKE_MCP_MARKS": str(marks), "FAKE_MCP_HOSTILE": "1"}
    app.core("update_settings", {"mcp_servers": {"报告 服务": fake_entry(marks, env=env)}})
    await until(
        lambda: [s["status"] for s in app.core("mcp_status")] == ["ready"], "the server ready"
    )
    served = {tool["name"]: tool for tool in app.send("mcp_tools")["tools"]}  # as serve asks
    [hostile] = [n for n, t in served.items() if "\u202eevil.exe" in t["description"]]
    async with serve(app, workspace, errlog) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "write_file" in listed and set(served) <= set(listed)
        assert listed[hostile].description == served[hostile]["description"]
        call = asyncio.create_task(client.call_tool(hostile, {"text": "来自客户端 ✓"}))
        note = (await until(lambda: asking(desktop, "来自客户端"), "the approval notification"))[0]
        await until(lambda: app.state()["notified"], "the app to wire the buttons")
        desktop.invoke(int(note["id"]), "approve")
        ran = await asyncio.wait_for(call, 60)
    assert ran.is_error is False, ran.content
    assert "hostile: 来自客户端 ✓" in str(ran.structured_content)
