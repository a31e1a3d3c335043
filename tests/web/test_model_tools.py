"""The model menu's tools: the "Tools via prompt" badge in the menu and the header, the switch
that turns a model's tools off (or back to automatic), and the check, in real Chromium against
a real Core and the fake Ollama (``gemma3:4b`` has no ``tools`` capability there)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import App, choose
from tray_app.core.model_check import PROBE_NAME


def _pick(app: App, name: str) -> None:
    page = app.page
    page.click("#btn-model")
    page.locator("#model-menu .model-row").filter(has_text=name).click()
    expect(page.locator("#model-name")).to_have_text(name)


def test_a_model_without_tools_shows_tools_via_prompt_and_can_be_switched_off(app: App) -> None:
    page = app.page
    page.click("#btn-model")
    gemma = page.locator("#model-menu .model-row").filter(has_text="gemma3:4b")
    expect(gemma.locator(".cap")).to_have_text(["Tools via prompt", "Vision"])
    qwen = page.locator("#model-menu .model-row").filter(has_text="qwen3:8b")
    expect(qwen.locator(".cap")).to_have_text(["Tools", "Thinking"])
    expect(page.locator("#btn-model .model-mode")).to_be_hidden()  # qwen3: native
    gemma.click()
    expect(page.locator("#btn-model .model-mode")).to_have_text("Tools via prompt")
    page.click("#btn-model")
    tools = page.locator("#model-menu .model-tools")
    expect(tools.locator(".model-tools-label")).to_have_text("Tools for gemma3:4b")
    select = page.locator("#model-tools-mode")
    expect(select).to_have_text("Automatic")
    # Native is not offered: the server says this model takes no tools.
    options = page.locator("#model-tools-mode-list [role=option]")
    assert [o.strip() for o in options.all_text_contents()] == ["Automatic", "Via prompt", "Off"]
    expect(tools.locator(".model-tools-help")).to_contain_text("described in its prompt")
    choose(page, "#model-tools-mode", "off")
    expect(page.locator("#btn-model .model-mode")).to_have_text("Tools off")
    expect(gemma.locator(".cap").first).to_have_text("Tools off")
    assert app.core.settings.model_tool_modes == {"gemma3:4b": "off"}
    expect(page.locator("#model-tools-mode")).to_have_text("Off")
    # a chat with it is plain, and says why
    page.click("#btn-model")  # closes the menu
    expect(page.locator("#model-menu")).to_be_hidden()
    assert app.fake is not None
    app.fake.script(text_turn("Plain chat."))
    app.send("Hi")
    expect(page.locator(".msg.assistant .content")).to_have_text("Plain chat.")
    expect(page.locator(".notice")).to_contain_text("switched off for this model")
    assert "tools" not in app.fake.chat_requests[-1]
    page.click("#btn-model")
    choose(page, "#model-tools-mode", "auto")
    expect(page.locator("#btn-model .model-mode")).to_have_text("Tools via prompt")
    assert app.core.settings.model_tool_modes == {}


def test_the_check_reports_and_remembers_how_the_model_calls(app: App) -> None:
    page = app.page
    _pick(app, "gemma3:4b")
    assert app.fake is not None
    app.fake.script(tool_turn([(PROBE_NAME, {"number": 42})]))
    page.click("#btn-model")
    page.click("#model-menu .model-check-tools")
    status = page.locator("#model-menu .model-check-status")
    expect(status).to_have_text("gemma3:4b calls tools via text: tools via prompt from now on.")
    expect(page.locator("#model-menu .model-checked")).to_have_text("Checked: calls via text")
    eventually(lambda: app.core.settings.model_tool_checks == {"gemma3:4b": "text"})
    expect(page.locator("#model-tools-mode")).to_have_text("Via prompt")  # chosen by the check


def test_the_badge_and_switch_in_chinese(make_app: Any, fake_ollama: FakeOllama) -> None:
    app: App = make_app(fake_ollama, language="zh-CN", default_model="gemma3:4b")
    page = app.page
    expect(page.locator("#btn-model .model-mode")).to_have_text("通过提示词使用工具")
    page.click("#btn-model")
    expect(page.locator("#model-menu .model-tools-label")).to_have_text("gemma3:4b 的工具")
    expect(page.locator("#model-tools-mode-list [data-value=off]")).to_have_text("关闭")
    expect(page.locator("#model-menu .model-check-tools")).to_have_text("检查工具调用")
    assert app.page_errors == []


def test_a_call_written_as_text_shows_as_a_card_and_never_as_markup(app: App) -> None:
    page = app.page
    _pick(app, "gemma3:4b")
    target = app.workspace / "笔记.md"
    assert app.fake is not None
    app.fake.script(
        tool_turn(
            [("write_file", {"path": str(target), "content": "# 你好 🙂\n"})],
            content="I will write it.\n",
            chunk_chars=3,
        ),
        text_turn("Written."),
    )
    page.evaluate(
        """() => {
          window.__markupSeen = false;
          const log = document.querySelector('#log');
          new MutationObserver(() => {
            if (log.textContent.includes('tool_call')) window.__markupSeen = true;
          }).observe(log, { subtree: true, childList: true, characterData: true });
        }"""
    )
    app.send("Write the note")
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "pending")  # it asks, as a native call does
    page.click("#approval .btn.primary")
    expect(card).to_have_attribute("data-status", "success")
    expect(page.locator(".msg.assistant .content").last).to_have_text("Written.")
    assert target.read_text(encoding="utf-8") == "# 你好 🙂\n"
    assert "<tool_call>" not in page.locator("#log").inner_text()
    assert page.evaluate("window.__markupSeen") is False  # not even for a frame
