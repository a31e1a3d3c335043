"""Settings › Tool servers, the server form's idle check (``ping_s``) and the tool list's
descriptions, in a real browser through the real bridge against the in-repo MCP server.

The idle check is 0 (off) or 5..3600 seconds: a value outside is refused in the form in the
page's language and nothing is saved; a value inside is saved and in force without a restart.
A tool description's line breaks are shown as breaks, while a bidi override stays written out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.mcp.conftest import fake_entry
from tests.support.waiting import eventually
from tests.web.conftest import App, AppFactory

pytestmark = pytest.mark.web

NAME = "本地 服务"

TEXTS = {
    "en": {
        "label": "Idle check (seconds)",
        "help": "0 turns the check off; otherwise 5 to 3600 seconds.",
        "bad": "Give 0 (off) or a number of seconds from 5 to 3600.",
    },
    "zh-CN": {
        "label": "空闲检查间隔（秒）",
        "help": "0 表示关闭检查；否则为 5 到 3600 秒。",
        "bad": "请输入 0（关闭）或 5 到 3600 之间的秒数。",
    },
}


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    folder = tmp_path / "marks"
    folder.mkdir()
    return folder


def open_server_form(app: App, name: str) -> Any:
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    row = page.locator(f'.mcp-server[data-name="{name}"]')
    expect(row.locator(".mcp-status")).to_have_attribute("data-status", "ready", timeout=30_000)
    row.locator(".mcp-edit").click()
    return row


def saved(app: App) -> dict[str, Any]:
    return dict(app.core.settings.mcp_servers[NAME])


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_the_idle_check_is_set_in_the_form_and_bounded(
    make_app: AppFactory, fake_ollama: FakeOllama, marks: Path, language: str
) -> None:
    texts = TEXTS[language]
    app = make_app(fake_ollama, language=language, mcp_servers={NAME: fake_entry(marks)})
    page = app.page
    open_server_form(app, NAME)
    field = page.locator(".mcp-form .mcp-f-ping_s")
    expect(field.locator("label")).to_have_text(texts["label"])
    expect(field.locator(".help")).to_contain_text(texts["help"])
    expect(page.locator("#mcp-f-ping_s")).to_have_value("30")  # the default, shown
    error = page.locator('.mcp-form .field-error[data-field="ping_s"]')
    for bad in ("2", "4.5", "3601", "-1", ""):
        page.fill("#mcp-f-ping_s", bad)
        page.click("#mcp-save")
        expect(error).to_have_text(texts["bad"])
        expect(page.locator("#mcp-f-ping_s")).to_be_focused()
    field.scroll_into_view_if_needed()
    app.screenshot(f"settings-mcp-idle-check-{language}")
    assert "ping_s" not in saved(app)  # nothing was saved

    page.fill("#mcp-f-ping_s", "0")  # off
    page.click("#mcp-save")
    eventually(lambda: saved(app).get("ping_s") == 0, 15, "the idle check switched off")
    expect(page.locator(".mcp-form")).to_have_count(0)
    manager = app.core._mcp.manager
    assert manager is not None
    eventually(lambda: getattr(manager.config(NAME), "ping_s", None) == 0, 15, "in force")

    page.locator(f'.mcp-server[data-name="{NAME}"] .mcp-edit').click()
    expect(page.locator("#mcp-f-ping_s")).to_have_value("0")
    page.fill("#mcp-f-ping_s", "45")
    page.click("#mcp-save")
    eventually(lambda: saved(app).get("ping_s") == 45, 15, "the idle check saved")
    eventually(lambda: getattr(manager.config(NAME), "ping_s", None) == 45, 15, "in force")
    assert manager.snapshot()[0].restarts == 0  # a new interval needs no restart
    assert app.page_errors == [] and app.dialogs == []


def test_a_tool_description_keeps_its_line_breaks_and_shows_a_bidi_override(
    make_app: AppFactory, fake_ollama: FakeOllama, marks: Path
) -> None:
    env = {"FAKE_MCP_MARKS": str(marks), "FAKE_MCP_HOSTILE": "1"}
    app = make_app(fake_ollama, mcp_servers={NAME: fake_entry(marks, env=env)})
    page = app.page
    page.click("#btn-settings")
    row = page.locator(f'.mcp-server[data-name="{NAME}"]')
    expect(row.locator(".mcp-status")).to_have_attribute("data-status", "ready", timeout=30_000)
    row.locator(".mcp-tools summary").click()
    tool = row.locator(".mcp-tool").filter(has_text="报告⟨U+202E⟩工具 🙂")
    description = tool.locator(".tool-text .help")
    expect(description).to_be_visible()
    shown = description.inner_text()  # as laid out: a break only where one is drawn
    lines = shown.split("\n")
    assert lines[:2] == ["第一行：读取报告 📄", "第二行 ⟨U+202E⟩evil.exe"], lines[:3]
    assert lines[2].startswith("长文本长文本") and shown.endswith("…")  # 10 KB: cut, said so
    assert "⟨U+000A⟩" not in shown and "⟨U+0009⟩" not in shown
    assert "\u202e" not in (description.text_content() or "")  # never reorders what is read
    tool.scroll_into_view_if_needed()
    app.screenshot("settings-mcp-tool-description")
    assert app.page_errors == [] and app.dialogs == []
