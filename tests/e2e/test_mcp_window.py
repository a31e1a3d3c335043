"""MCP in the real popup (pywebview's WebKitGTK window under Xvfb, the real app with its tray
host and notification daemon): a settings file with the in-repo stdio server under a Chinese
name, in zh-CN → Settings › Tool servers shows it running with its tools, and a call to one of
its tools from a scripted model turn shows its card as "server › tool"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_setup import app_home, app_settings, running
from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.conftest import fake_entry
from tray_app.mcp.naming import tool_name

pytestmark = [pytest.mark.gui, pytest.mark.timeout(300)]

SERVER = "本地 工具"  # names are letters or digits of any script (mcp/config.py)
CITY = "北京 🏙 \u202eexe.txt"


@pytest.fixture
def app_with_server(
    desktop: DesktopEnv, fake: FakeOllama, workspace: Path, tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[AppProcess]:  # fmt: skip
    marks = tmp_path / "marks"
    marks.mkdir()
    servers = {SERVER: fake_entry(marks, trust="trust_read_only")}
    settings = app_settings(fake.url, workspace, language="zh-CN", mcp_servers=servers)
    yield from running(AppProcess(desktop, app_home(tmp_path, settings), name=request.node.name))


def text_of(app: AppProcess, selector: str) -> str | None:
    return app.eval_js(  # type: ignore[no-any-return]
        f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent ?? null"
    )


def test_tool_servers_and_an_mcp_card_in_the_real_window_in_chinese(
    desktop: DesktopEnv, app_with_server: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    app = app_with_server
    wait_for(
        lambda: any(s["name"] == SERVER and s["status"] == "ready" for s in app.core("mcp_status")),
        90,
        "the stdio server to be ready",
    )
    weather = tool_name(SERVER, "weather", set())
    fake.script(tool_turn([(weather, {"city": CITY})]), text_turn("完成。"))
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "天气怎么样？")
    wait_for(lambda: app.core("status")["state"] == "idle", 60, "the turn to finish")
    (call,) = app.core("get_session", session["id"])["tool_calls"]
    assert call["status"] == "success" and CITY in json.dumps(call["result"], ensure_ascii=False)

    app.send("show")
    wait_for(lambda: app.state()["visible"], 15, "the popup")
    wait_for(
        lambda: app.eval_js("document.querySelector('#app').dataset.checked === 'true'"),
        30,
        "the page",
    )
    card = f'.tool-card[data-call-id="{call["call_id"]}"]'
    name = wait_for(lambda: text_of(app, f"{card} .tc-name"), 30, "the call's card")
    assert name == f"{SERVER} › weather"
    assert app.eval_js(f"document.querySelector('{card}').dataset.status") == "success"
    desktop.screenshot("mcp-window-card")

    app.eval_js("(document.querySelector('#btn-settings').click(), 1)")
    row = f'.mcp-server[data-name="{SERVER}"]'
    status = wait_for(lambda: text_of(app, f"{row} .mcp-status"), 30, "the server's row")
    assert status == "运行中"
    tools = app.eval_js(
        f"[...document.querySelectorAll('{row} .mcp-tool input[data-tool]')]"
        ".map((box) => box.dataset.tool)"
    )
    assert {"echo", "weather", "wipe"} <= set(tools)
    heading = text_of(app, "#settings")
    assert heading is not None and "工具服务器" in heading
    app.eval_js(
        f"(document.querySelector('{row} .mcp-tools').open = true,"
        f" document.querySelector('{row}').scrollIntoView({{block: 'start'}}), 1)"
    )
    shown = wait_for(
        lambda: app.eval_js(f"document.querySelector('{row} .mcp-tool').offsetHeight > 0"),
        10,
        "the server's tools, opened",
    )
    assert shown
    desktop.screenshot("mcp-window-settings")
