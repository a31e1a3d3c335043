"""Settings › Tool servers (MCP) in a real browser through the real bridge, against the in-repo
MCP server: add a server with the form and see it running with its tools, switch a tool off and
see the turn's tool list without it, a failing server shows its error, a server switched on
only by the user's own click, secrets in the file never reach the page, a pasted Claude Desktop
config, hostile names as text, and the zh-CN texts."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn
from tests.mcp.conftest import ROOT, fake_entry
from tests.mcp.http_keyring import FileKeyring
from tests.mcp.http_serve import Served, serve
from tests.support.waiting import eventually
from tests.web.conftest import App, AppFactory
from tray_app.store.secrets import SecretStore

pytestmark = pytest.mark.web
__all__ = ["serve"]  # the fixture, imported


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    folder = tmp_path / "marks"
    folder.mkdir()
    return folder


def open_settings(app: App) -> Any:
    page = app.page
    page.click("#btn-settings")
    panel = page.locator("#settings")
    expect(panel).to_have_attribute("data-armed", "true")
    return panel


def server_row(app: App, name: str) -> Any:
    return app.page.locator(f'.mcp-server[data-name="{name}"]')


def saved_servers(app: App) -> dict[str, Any]:
    return dict(app.core.settings.mcp_servers)


def test_add_a_server_see_its_tools_and_switch_one_off(
    make_app: AppFactory, fake_ollama: FakeOllama, marks: Path
) -> None:
    app = make_app(fake_ollama)
    page = app.page
    open_settings(app)
    expect(page.locator(".mcp-none")).to_have_text("No tool servers yet.")
    page.click("#mcp-add")
    page.fill("#mcp-f-name", "fake")
    page.fill("#mcp-f-command", sys.executable)
    page.fill("#mcp-f-args", "-m\ntests.mcp.fake_server")
    page.fill("#mcp-f-cwd", str(ROOT))
    page.fill("#mcp-f-env", f"FAKE_MCP_MARKS={marks}\nAPI_TOKEN=s3cret-value")
    page.click("#mcp-save")
    row = server_row(app, "fake")
    expect(row.locator(".mcp-status")).to_have_text("Running", timeout=30_000)
    entry = saved_servers(app)["fake"]
    assert entry["args"] == ["-m", "tests.mcp.fake_server"]
    assert entry["env"]["API_TOKEN"] == "s3cret-value"
    # The secret written in the file never comes back to the page.
    assert "s3cret-value" not in page.content()
    assert app.core.get_settings()["mcp_servers"]["fake"]["env"]["API_TOKEN"] == "***"

    row.locator(".mcp-tools summary").click()
    wipe = row.locator('.mcp-tool:has(input[data-tool="wipe"])')
    expect(wipe.locator(".mcp-risk")).to_have_text("always asks")
    expect(row.locator('.mcp-tool:has(input[data-tool="echo"]) .mcp-risk')).to_have_text(
        "reads, asks first"
    )
    wipe.locator("input").focus()
    page.keyboard.press("Space")  # by keyboard; the list stays open with the focus on it
    eventually(lambda: saved_servers(app)["fake"].get("disabled_tools") == ["wipe"], 30, "saved")
    expect(page.locator('input[data-tool="wipe"]')).not_to_be_checked()
    expect(page.locator('input[data-tool="wipe"]')).to_be_focused()
    # Saving the form again keeps the hidden secret (*** means "keep what the file has").
    row.locator(".mcp-edit").click()
    expect(page.locator("#mcp-f-env")).to_have_value("FAKE_MCP_MARKS=***\nAPI_TOKEN=***")
    page.fill("#mcp-f-timeout_s", "30")
    page.click("#mcp-save")
    eventually(lambda: saved_servers(app)["fake"].get("timeout_s") == 30, 30, "timeout saved")
    assert saved_servers(app)["fake"]["env"]["API_TOKEN"] == "s3cret-value"
    expect(page.locator(".mcp-form")).to_have_count(0)

    eventually(lambda: any(s["status"] == "ready" for s in app.core.mcp_status()), 30, "ready")
    fake_ollama.script(text_turn("Hello."))
    page.click("#settings-close")
    app.send("hi")
    eventually(lambda: fake_ollama.chat_requests, 30, "a chat request")
    names = {t["function"]["name"] for t in fake_ollama.chat_requests[0]["tools"]}
    assert "fake__echo" in names and "fake__wipe" not in names
    assert app.page_errors == [] and app.dialogs == []


def test_a_failing_server_shows_its_error_and_hostile_text_stays_text(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    hostile = "<img src=x onerror=alert(1)>報告\u202e"
    app = make_app(
        fake_ollama,
        mcp_servers={
            "broken": {"command": str(tmp_path / "no-such-program"), "args": [hostile]},
            hostile: {"command": "x", "url": "http://both"},  # invalid in the file
        },
    )
    open_settings(app)
    row = server_row(app, "broken")
    expect(row.locator(".mcp-status")).to_have_text("Failed", timeout=30_000)
    expect(row.locator(".mcp-error-why")).to_contain_text("no-such-program could not be started")
    expect(row.locator(".mcp-what")).to_contain_text("<img src=x onerror=alert(1)>報告")
    assert row.locator("img").count() == 0
    invalid = app.page.locator(".mcp-server").nth(1)
    expect(invalid.locator(".mcp-status")).to_have_text("Invalid")
    expect(invalid.locator(".mcp-name")).to_contain_text("<img src=x onerror=alert(1)>報告")
    why = invalid.locator(".mcp-error-why")  # a refused name: coded, said in the page's words
    expect(why).to_have_text(
        "A server name cannot contain “<” (U+003C): use letters or digits "
        "of any script, spaces, “.”, “_” or “-”."
    )
    assert app.page.locator(".mcp-list img").count() == 0
    # Switching the good one off still saves: the broken entry is kept as the file has it.
    row.locator("label.switch").click()
    eventually(lambda: app.core.settings.mcp_servers["broken"].get("enabled") is False, 10, "off")
    assert hostile in app.core.settings.mcp_servers
    assert app.page_errors == [] and app.dialogs == []


def test_enabling_a_server_needs_the_users_own_click(
    make_app: AppFactory, fake_ollama: FakeOllama, marks: Path
) -> None:
    app = make_app(fake_ollama, mcp_servers={"fake": fake_entry(marks, enabled=False)})
    page = app.page
    open_settings(app)
    row = server_row(app, "fake")
    expect(row.locator(".mcp-status")).to_have_text("Disabled")
    switch = row.locator("[role=switch]")
    switch.evaluate("(el) => el.click()")  # a script's click: refused and said so
    expect(page.locator(".mcp-field > .field-error")).to_contain_text("click or key press")
    assert saved_servers(app)["fake"].get("enabled") is False
    row.locator("label.switch").click()  # the user's own click
    expect(row.locator(".mcp-status")).to_have_text("Running", timeout=30_000)
    assert saved_servers(app)["fake"]["enabled"] is True
    # Switching it off narrows: no extra step.
    switch.focus()
    page.keyboard.press("Space")
    expect(row.locator(".mcp-status")).to_have_text("Disabled")
    eventually(lambda: app.core.mcp_status()[0]["status"] == "disabled", 15, "stopped")


def test_core_refusal_shows_under_the_field(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama)
    page = app.page
    open_settings(app)
    page.click("#mcp-add")
    page.fill("#mcp-f-name", "remote")
    page.click("#mcp-f-kind")
    page.click('#mcp-f-kind-list [data-value="http"]')
    page.fill("#mcp-f-url", "ftp://example.invalid/mcp")
    page.click("#mcp-save")
    error = page.locator('.mcp-form .field-error[data-field="url"]')
    expect(error).to_contain_text("http://")
    assert saved_servers(app) == {}
    page.fill("#mcp-f-name", "bad/name")
    page.fill("#mcp-f-url", "http://127.0.0.1:9/mcp")
    page.click("#mcp-save")
    expect(page.locator('.mcp-form .field-error[data-field="name"]')).to_contain_text("server name")
    assert saved_servers(app) == {}


def test_paste_a_claude_desktop_config(
    make_app: AppFactory, fake_ollama: FakeOllama, marks: Path
) -> None:
    app = make_app(fake_ollama, mcp_servers={"old": {"command": "true", "enabled": False}})
    page = app.page
    open_settings(app)
    page.locator(".mcp-paste summary").click()
    page.fill("#mcp-paste", "{not json")
    page.click("#mcp-import")
    expect(page.locator(".mcp-paste .field-error")).to_contain_text("not JSON")
    entry = {**fake_entry(marks), "env": {**fake_entry(marks)["env"], "TOKEN": "plain-secret"}}
    page.fill("#mcp-paste", json.dumps({"mcpServers": {"fake": entry}, "other": 1}))
    page.locator("#mcp-import").evaluate("(el) => el.click()")  # a script: refused, no note
    expect(page.locator(".mcp-field > .field-error")).to_contain_text("click or key press")
    expect(page.locator("#mcp-paste-note")).to_be_hidden()
    assert set(saved_servers(app)) == {"old"}
    page.click("#mcp-import")
    expect(page.locator("#mcp-paste-note")).to_contain_text("fake")
    expect(page.locator("#mcp-paste-note")).to_contain_text("keyring:NAME")
    expect(server_row(app, "fake").locator(".mcp-status")).to_have_text("Running", timeout=30_000)
    servers = saved_servers(app)
    assert set(servers) == {"old", "fake"} and servers["fake"]["env"]["TOKEN"] == "plain-secret"


def test_zh_cn_texts(make_app: AppFactory, fake_ollama: FakeOllama, marks: Path) -> None:
    app = make_app(fake_ollama, language="zh-CN", mcp_servers={"fake": fake_entry(marks)})
    page = app.page
    open_settings(app)
    expect(page.locator("#settings h3", has_text="工具服务器（MCP）")).to_be_visible()
    row = server_row(app, "fake")
    expect(row.locator(".mcp-status")).to_have_text("运行中", timeout=30_000)
    row.locator(".mcp-tools summary").click()
    expect(row.locator('.mcp-tool:has(input[data-tool="wipe"]) .mcp-risk')).to_have_text("总是询问")
    row.scroll_into_view_if_needed()
    app.screenshot("settings-mcp-zh-CN")
    page.click("#mcp-add")
    expect(page.locator(".mcp-form h4")).to_have_text("新的工具服务器")
    expect(page.locator(".mcp-form")).to_contain_text("keyring:名称")
    expect(page.locator(".mcp-secret summary")).to_have_text("把密钥存入系统密钥环")


def test_in_chinese_a_servers_known_failure_is_said_in_chinese(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """Core's cause code (mcp/causes.py) is said in the page's language, the command or
    address written out; the server's English detail stays only in the tooltip."""
    missing = tmp_path / "不存在\u202egpj.exe👋"
    app = make_app(
        fake_ollama,
        language="zh-CN",
        mcp_servers={
            "gone": {"command": str(missing)},
            "nobody": {"url": "http://127.0.0.1:9/mcp", "timeout_s": 5},
        },
    )
    open_settings(app)
    gone = server_row(app, "gone")
    expect(gone.locator(".mcp-status")).to_have_text("失败", timeout=30_000)
    shown = str(missing).replace("\u202e", "⟨U+202E⟩")
    expect(gone.locator(".mcp-error-why")).to_have_text(f"无法启动其命令 {shown}：找不到。")
    assert gone.locator(".mcp-error-text").count() == 0
    # the page's tooltips keep a title as data-tip
    expect(gone.locator(".mcp-error-why")).to_have_attribute("data-tip", re.compile("No such file"))
    nobody = server_row(app, "nobody")
    expect(nobody.locator(".mcp-status")).to_have_text("失败", timeout=30_000)
    expect(nobody.locator(".mcp-error-why")).to_have_text("http://127.0.0.1:9/mcp 没有回应。")
    assert "\u202e" not in app.page.locator(".mcp-list").inner_text()
    assert app.page_errors == [] and app.dialogs == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_section_passes_axe(
    make_app: AppFactory, fake_ollama: FakeOllama, marks: Path, tmp_path: Path, theme: str
) -> None:
    from tests.web.axe import axe_violations

    app = make_app(
        fake_ollama,
        theme=theme,
        mcp_servers={
            "fake": fake_entry(marks),
            "broken": {"command": str(tmp_path / "missing")},
            "off": fake_entry(marks, enabled=False),
        },
    )
    page = app.page
    open_settings(app)
    row = server_row(app, "fake")
    expect(row.locator(".mcp-status")).to_have_text("Running", timeout=30_000)
    expect(server_row(app, "broken").locator(".mcp-status")).to_have_text("Failed", timeout=30_000)
    row.locator(".mcp-tools summary").click()
    page.click("#mcp-add")
    page.locator(".mcp-secret summary").click()
    page.locator(".mcp-paste summary").click()
    assert axe_violations(page, ".mcp-field") == []


def test_status_and_tool_changes_are_pushed_not_polled(
    make_app: AppFactory, fake_ollama: FakeOllama, marks: Path
) -> None:
    import threading

    name = "远程-服务"
    app = make_app(fake_ollama, mcp_servers={name: fake_entry(marks)})
    asked: list[int] = []
    real = app.core.mcp_status

    def counted() -> list[dict[str, Any]]:
        asked.append(1)
        return real()

    app.core.mcp_status = counted  # type: ignore[method-assign]
    open_settings(app)
    row = server_row(app, name)
    expect(row.locator(".mcp-status")).to_have_text("Running", timeout=30_000)
    count = len(next(s for s in real() if s["name"] == name)["tools"])
    expect(row.locator(".mcp-tools summary")).to_have_text(f"{count} tools")
    eventually(lambda: asked, 10, "the page's one question when the section opened")
    before = len(asked)
    manager = app.core._mcp.manager  # the server's own tool changes its list
    assert manager is not None
    assert manager.call(name, "grow", {}, cancel=threading.Event())["isError"] is False
    expect(row.locator(".mcp-tools summary")).to_have_text(f"{count + 1} tools", timeout=30_000)
    row.locator(".mcp-tools summary").click()
    expect(row.locator('input[data-tool="late"]')).to_be_attached()
    assert len(asked) == before == 1  # the change came as an event: the page never asked
    assert app.page_errors == [] and app.dialogs == []


def test_a_header_secret_typed_in_the_popup_goes_to_the_keyring_only(
    make_app: AppFactory,
    fake_ollama: FakeOllama,
    serve: Callable[..., Served],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("METONA_TEST_KEYRING", str(tmp_path / "keyring.json"))
    store = SecretStore(FileKeyring())
    served = serve("http")
    token = "Bearer 7f3a-secret-token"
    name = "远程 服务"
    app = make_app(fake_ollama, secrets=lambda: store)
    page = app.page
    open_settings(app)
    page.click("#mcp-add")
    page.fill("#mcp-f-name", name)
    page.click("#mcp-f-kind")
    page.click('#mcp-f-kind-list [data-value="http"]')
    page.fill("#mcp-f-url", served.url)
    page.fill("#mcp-f-headers", "X-Tenant: t-1\nauthorization: ***")
    page.locator(".mcp-secret summary").click()
    page.click("#mcp-secret-store")  # nothing typed yet
    expect(page.locator("#mcp-secret-error")).to_have_text(
        "A header name is letters, digits, - and _."
    )
    page.fill("#mcp-secret-key", "Authorization")
    page.fill("#mcp-secret-value", "密钥 🔑 \u202e")  # a header cannot carry it: said at once
    page.click("#mcp-secret-store")
    expect(page.locator("#mcp-secret-error")).to_contain_text("plain ASCII")
    assert store.get(f"mcp:{name}.Authorization") is None
    page.fill("#mcp-secret-value", token)
    page.click("#mcp-secret-store")
    reference = f"keyring:{name}.Authorization"
    expect(page.locator("#mcp-secret-note")).to_have_text(
        f"Stored. Authorization now refers to {reference}."
    )
    expect(page.locator("#mcp-secret-value")).to_have_value("")
    expect(page.locator("#mcp-f-headers")).to_have_value(
        f"X-Tenant: t-1\nAuthorization: {reference}"
    )
    assert store.get(f"mcp:{name}.Authorization") == token
    page.click("#mcp-save")
    row = server_row(app, name)
    expect(row.locator(".mcp-status")).to_have_text("Running", timeout=30_000)
    assert saved_servers(app)[name]["headers"] == {"X-Tenant": "t-1", "Authorization": reference}
    assert any(f"auth={token} tenant=t-1" in line for line in served.requests())
    assert token not in page.content()
    assert token not in page.evaluate("JSON.stringify(localStorage) + document.body.innerText")
    assert app.page_errors == [] and app.dialogs == []
