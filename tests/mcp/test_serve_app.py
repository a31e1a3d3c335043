"""``metona-tray mcp serve`` asks through the running app.

The SDK's own client drives ``mcp serve`` as a real subprocess; the "app" is a headless Core
behind the real instance socket answering with the app's own dispatch
(``desktop/instance/instance_dispatch.py``), so approvals wait for the person in the app.
tests/e2e/test_mcp_serve.py does the same with the whole desktop app under Xvfb and its
notifications.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
from multiprocessing.connection import Listener
from pathlib import Path
from typing import IO

import pytest

from tests.mcp.serve_rig import HeadlessApp, serve, until, write_settings
from tray_app.base.events import ApprovalNeeded, ApprovalResolved
from tray_app.base.paths import AppPaths
from tray_app.cli.mcp_serve import Calls
from tray_app.core.bootstrap import start_app
from tray_app.desktop.instance import mcp_link
from tray_app.desktop.instance.instance import SingleInstance

pytestmark = pytest.mark.timeout(120)

NAME = "报告 \u202etxt.exe 📄.md"  # CJK, a bidi override and an emoji in one file name


@pytest.fixture
def work(tmp_path: Path, metona_home: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    write_settings(metona_home, {"allowed_dirs": [str(folder)], "confirmation_mode": "all_writes"})
    return folder


async def test_an_approved_write_lands_in_the_app_and_undoes(
    app: HeadlessApp, metona_home: Path, work: Path, tmp_path: Path, errlog: IO[str]
) -> None:
    async with serve(metona_home, work, errlog) as client:
        call = asyncio.create_task(
            client.call_tool("write_file", {"path": NAME, "content": "新内容 ✓\n"})
        )
        pending = await until(app.pending, "the write to wait in the app")
        assert pending[0]["name"] == "write_file"
        assert pending[0]["arguments"]["path"] == NAME
        assert not (work / NAME).exists()  # nothing is written before the person says so
        app.running.core.decide(pending[0]["call_id"], True, by="notification")
        wrote = await call
        assert wrote.is_error is False, wrote.content
        assert (work / NAME).read_text(encoding="utf-8") == "新内容 ✓\n"

        read = await client.call_tool("read_file", {"path": NAME})  # reads never ask
        assert read.is_error is False and read.structured_content["content"] == "新内容 ✓\n"
    assert "running Metona Tray" in (tmp_path / "serve.err").read_text(encoding="utf-8")

    core = app.running.core
    sessions = [s for s in core.list_sessions() if s["title"] == "MCP client"]
    assert len(sessions) == 1  # the app's chat, written by the app alone
    calls = core.get_session(sessions[0]["id"])["tool_calls"]
    assert [(c["name"], c["status"]) for c in calls] == [
        ("write_file", "success"),
        ("read_file", "success"),
    ]
    assert calls[0]["decided_by"] == "notification"
    assert calls[0]["undoable"] is True
    core.undo(calls[0]["call_id"])
    assert not (work / NAME).exists()


async def test_a_denied_call_is_a_tool_error_and_the_flags_still_approve(
    app: HeadlessApp, metona_home: Path, work: Path, tmp_path: Path, errlog: IO[str]
) -> None:
    (work / "keep.txt").write_text("keep\n")
    asked = app.running.core.bus.subscribe(lambda e: isinstance(e, ApprovalNeeded))
    async with serve(metona_home, work, errlog, "--yes") as client:
        wrote = await client.call_tool("write_file", {"path": "by-flag.md", "content": "ok"})
        assert wrote.is_error is False, wrote.content  # --yes approves writes: not asked
        assert (work / "by-flag.md").read_text() == "ok"
        # ... not even for a moment: no card or notification appears only to be answered
        assert asked.drain() == []
        asked.close()
        [chat] = [s["id"] for s in app.running.core.list_sessions() if s["title"] == "MCP client"]
        assert app.running.core.get_session(chat)["tool_calls"][0]["decided_by"] == "mcp_flag"

        call = asyncio.create_task(client.call_tool("delete_file", {"path": "keep.txt"}))
        pending = await until(app.pending, "the delete to wait in the app")
        assert pending[0]["name"] == "delete_file"  # --yes does not cover deletes: asked
        app.running.core.decide(pending[0]["call_id"], False, by="popup")
        refused = await call
    assert refused.is_error is True
    assert "denied" in refused.content[0].text
    assert (work / "keep.txt").exists()


def is_approval(event: object) -> bool:
    return isinstance(event, (ApprovalNeeded, ApprovalResolved))


async def test_yes_all_approves_a_delete_before_any_card_or_notification_and_it_undoes(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    """Nothing is published for what the flag approves (the popup's card and the native
    notification would flash), and the chat and audit trail say the MCP client's flag did."""
    (work / NAME).write_text("旧 \u202e 🙂\n", encoding="utf-8")
    (work / "also.txt").write_text("x\n", encoding="utf-8")
    core = app.running.core
    seen = core.bus.subscribe(is_approval)
    try:
        async with serve(metona_home, work, errlog, "--yes-all") as client:
            deleted = await client.call_tool("delete_file", {"path": NAME})
            wrote = await client.call_tool("write_file", {"path": "新.md", "content": "✓"})
            read = await client.call_tool("read_file", {"path": "新.md"})
        assert deleted.is_error is False, deleted.content
        assert wrote.is_error is False and read.is_error is False
        assert not (work / NAME).exists()
        assert seen.drain() == []  # no approval_needed, not even answered at once

        [chat] = [s["id"] for s in core.list_sessions() if s["title"] == "MCP client"]
        calls = core.get_session(chat)["tool_calls"]
        assert [(c["name"], c["decision"], c["decided_by"]) for c in calls] == [
            ("delete_file", "approved", "mcp_flag"),
            ("write_file", "approved", "mcp_flag"),
            ("read_file", "approved", "rule"),  # reads never ask, in any chat
        ]
        core.undo(calls[0]["call_id"])
        assert (work / NAME).read_text(encoding="utf-8") == "旧 \u202e 🙂\n"

        # The flag was the client's, for its calls: a call the app's own model makes in the
        # same chat is asked as always.
        own = core.start_tool(chat, "delete_file", {"path": "also.txt"})
        event = await asyncio.to_thread(seen.get, 60.0)
        assert isinstance(event, ApprovalNeeded) and event.name == "delete_file"
        core.decide(event.call_id, False, by="popup")
        assert (await asyncio.wrap_future(own))["success"] is False
        assert (work / "also.txt").exists()
    finally:
        seen.close()


async def test_without_a_flag_the_delete_is_published_for_the_person_to_answer(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    (work / NAME).write_text("x", encoding="utf-8")
    core = app.running.core
    seen = core.bus.subscribe(lambda e: isinstance(e, ApprovalNeeded))
    try:
        async with serve(metona_home, work, errlog) as client:
            call = asyncio.create_task(client.call_tool("delete_file", {"path": NAME}))
            event = await asyncio.to_thread(seen.get, 60.0)
            assert isinstance(event, ApprovalNeeded)
            assert (event.name, event.arguments["path"]) == ("delete_file", NAME)
            assert (work / NAME).exists()
            core.decide(event.call_id, True, by="popup")
            deleted = await call
    finally:
        seen.close()
    assert deleted.is_error is False, deleted.content
    assert not (work / NAME).exists()


async def test_a_cancelled_call_stops_waiting_in_the_app(
    app: HeadlessApp, metona_home: Path, work: Path, tmp_path: Path, errlog: IO[str]
) -> None:
    async with serve(metona_home, work, errlog) as client:
        call = asyncio.create_task(
            client.call_tool("write_file", {"path": "never.md", "content": "x"})
        )
        await until(app.pending, "the write to wait in the app")
        call.cancel()  # the client gives up: the SDK sends notifications/cancelled
        with contextlib.suppress(asyncio.CancelledError):
            await call
        await until(lambda: app.pending() == [], "the card to go away in the app")
        # the server still answers after a cancel
        listed = await client.list_tools()
        assert "write_file" in {t.name for t in listed.tools}
    assert not (work / "never.md").exists()


async def test_the_app_quitting_mid_call_fails_the_call_cleanly(
    app: HeadlessApp, metona_home: Path, work: Path, tmp_path: Path, errlog: IO[str]
) -> None:
    async with serve(metona_home, work, errlog) as client:
        call = asyncio.create_task(
            client.call_tool("write_file", {"path": "late.md", "content": "x"})
        )
        await until(app.pending, "the write to wait in the app")
        await asyncio.to_thread(app.quit)
        failed = await asyncio.wait_for(call, 60)
        assert failed.is_error is True
        assert "Metona Tray quit" in failed.content[0].text
        # Without the app, reads still work here and a write says how to get it approved.
        (work / "读我.txt").write_text("你好 \u202e", encoding="utf-8")
        read = await client.call_tool("read_file", {"path": "读我.txt"})
        assert read.is_error is False and read.structured_content["content"] == "你好 \u202e"
        refused = await client.call_tool("write_file", {"path": "late.md", "content": "x"})
        assert refused.is_error is True
        assert "Open Metona Tray to approve it" in refused.content[0].text
    assert not (work / "late.md").exists()
    assert "not running" in (tmp_path / "serve.err").read_text(encoding="utf-8")


async def test_without_the_app_serve_says_so_and_refuses_what_needs_asking(
    metona_home: Path, work: Path, tmp_path: Path, errlog: IO[str]
) -> None:
    async with serve(metona_home, work, errlog) as client:
        refused = await client.call_tool("write_file", {"path": NAME, "content": "x"})
    assert refused.is_error is True
    assert "Open Metona Tray to approve it there" in refused.content[0].text
    assert not (work / NAME).exists()
    err = (tmp_path / "serve.err").read_text(encoding="utf-8")
    assert "Metona Tray is not running" in err


async def test_without_the_app_yes_all_deletes_and_its_chat_says_the_flag_did(
    metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    (work / NAME).write_text("旧\n", encoding="utf-8")
    async with serve(metona_home, work, errlog, "--yes-all") as client:
        deleted = await client.call_tool("delete_file", {"path": NAME})
    assert deleted.is_error is False, deleted.content
    assert not (work / NAME).exists()
    later = start_app(AppPaths.under(metona_home), mcp="off")  # the app opened afterwards
    try:
        [chat] = [s["id"] for s in later.core.list_sessions() if s["title"] == "MCP client"]
        [call] = later.core.get_session(chat)["tool_calls"]
        assert (call["name"], call["decided_by"]) == ("delete_file", "mcp_flag")
        later.core.undo(call["call_id"])
    finally:
        later.close()
    assert (work / NAME).read_text(encoding="utf-8") == "旧\n"


async def test_huge_arguments_go_through_and_too_huge_ones_are_refused_clearly(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    content = "汉字\u202e🙂\n" * 100_000  # 500 K characters, 2.4 MB as JSON on the socket
    async with serve(metona_home, work, errlog, "--yes") as client:
        wrote = await client.call_tool("write_file", {"path": "大.txt", "content": content})
        assert wrote.is_error is False, wrote.content
        assert (work / "大.txt").read_text(encoding="utf-8") == content
        too_big = await client.call_tool(
            "write_file", {"path": "x.txt", "content": "x" * 17_000_000}
        )
        assert too_big.is_error is True
        assert "arguments exceed 16 MB" in too_big.content[0].text
        info = await client.call_tool("get_file_info", {"path": "大.txt"})
        assert info.is_error is False, info.content  # the app still answers
    assert not (work / "x.txt").exists()


def test_an_app_that_does_not_answer_is_not_bypassed(
    metona_home: Path,
    work: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A stuck app may still act on a call it receives late: running it here as well could
    do it twice, so the call fails and nothing runs here (not even with --yes)."""
    monkeypatch.setattr(mcp_link, "CONNECT_WAIT", 0.5)
    monkeypatch.setattr(mcp_link, "OPEN_WAIT", 0.5)
    paths = AppPaths.under(metona_home)
    paths.ensure()
    stuck = SingleInstance(paths.runtime_dir)
    assert stuck.acquire()
    listener = Listener(stuck.address, stuck.family, authkey=stuck._new_key())  # never accepts
    args = argparse.Namespace(workspace=str(work), yes=True, yes_all=False)
    calls = Calls(paths, args, "en")
    try:
        assert calls.link.running()  # there, though busy
        failed = calls.run("write_file", {"path": NAME, "content": "x"}, threading.Event())
        calls.link.session_id = "s-opened-before"  # and once the chat exists, the call itself
        failed_later = calls.run("write_file", {"path": NAME, "content": "x"}, threading.Event())
    finally:
        calls.local.close()
        listener.close()
        stuck.release()
    for result in (failed, failed_later):
        assert result["success"] is False
        assert "did not answer in time" in result["error"]
    assert calls.local._app is None  # no Core of its own was started to run it
    assert not (work / NAME).exists()


async def test_a_workspace_that_is_no_folder_is_a_clear_tool_error_with_or_without_the_app(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    missing = work / "没有 \u202e folder"
    async with serve(metona_home, missing, errlog) as client:
        with_app = await client.call_tool("read_file", {"path": "a.txt"})
        await asyncio.to_thread(app.quit)
        without = await client.call_tool("read_file", {"path": "a.txt"})
    for result in (with_app, without):
        assert result.is_error is True
        assert "is not a folder" in result.content[0].text, result.content


async def test_stderr_speaks_the_users_language(
    metona_home: Path, work: Path, errlog: IO[str], tmp_path: Path
) -> None:
    config = metona_home / "config" / "settings.json"
    settings = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**settings, "language": "zh-CN"}), encoding="utf-8")
    async with serve(metona_home, work, errlog) as client:
        assert (await client.list_tools()).tools
    assert "Metona Tray 未运行" in (tmp_path / "serve.err").read_text(encoding="utf-8")


async def test_deleting_the_mcp_client_chat_in_the_app_starts_a_new_one(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    (work / "a.txt").write_text("一\n", encoding="utf-8")
    core = app.running.core

    def mcp_chats() -> list[str]:
        return [s["id"] for s in core.list_sessions() if s["title"] == "MCP client"]

    async with serve(metona_home, work, errlog) as client:
        assert (await client.call_tool("read_file", {"path": "a.txt"})).is_error is False
        [first] = mcp_chats()
        core.delete_session(first)  # the person deletes the chat in the popup
        again = await client.call_tool("read_file", {"path": "a.txt"})
    assert again.is_error is False, again.content
    [second] = mcp_chats()
    assert second != first
    assert [c["name"] for c in core.get_session(second)["tool_calls"]] == ["read_file"]
