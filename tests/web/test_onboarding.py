"""What the popup says when Ollama is down or has no model, and the keyboard around the chat."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.support.waiting import eventually
from tests.web.conftest import App, AppFactory

pytestmark = pytest.mark.web


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_onboarding_when_the_server_is_down_then_retry(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    down = f"http://127.0.0.1:{closed_port()}"
    app = make_app(endpoint=down)
    page = app.page
    card = page.locator("#onboarding .ob-card")
    expect(card).to_be_visible()
    expect(card.locator("h2")).to_have_text("Ollama is not running")
    expect(card).to_contain_text(down)
    expect(card.locator(".ob-steps code")).to_have_text("ollama serve")
    expect(page.locator("#log-empty")).to_be_hidden()
    card.locator("a.ext-link").click()
    eventually(lambda: app.harness.opened_links == ["https://ollama.com/download"])
    card.get_by_role("button", name="Retry").click()
    expect(card).to_be_visible()
    # Fixing the address in Settings brings the chat back.
    card.get_by_role("button", name="Settings").click()
    page.fill("#set-endpoint", fake_ollama.url)
    page.press("#set-endpoint", "Enter")
    page.keyboard.press("Escape")
    expect(card).to_be_hidden()
    expect(page.locator("#log-empty")).to_be_visible()
    expect(page.locator("#model-name")).to_have_text("qwen3:8b")


def test_onboarding_pulls_a_model_with_progress(make_app: AppFactory) -> None:
    with FakeOllama(models={}) as fake:
        app = make_app(fake, default_model="")
        page = app.page
        card = page.locator("#onboarding .ob-card")
        expect(card.locator("h2")).to_have_text("No model installed yet")
        page.locator("#onboarding .chip", has_text="llama3.2:3b").click()
        expect(page.locator("#pull-name")).to_have_value("llama3.2:3b")
        # The card goes away as soon as the model is there: record the bar as it moves.
        page.evaluate(
            """() => {
              window.__progress = { steps: [], last: null };
              new MutationObserver((records) => {
                for (const r of records) {
                  if (r.target.tagName === 'PROGRESS' && r.attributeName === 'value') {
                    window.__progress.steps.push(Number(r.oldValue));
                  }
                }
                const bar = document.querySelector('#onboarding progress');
                if (bar) window.__progress.last = [bar.value, bar.max];
              }).observe(document.querySelector('#onboarding'),
                         { attributes: true, attributeOldValue: true, subtree: true,
                           childList: true });
            }"""
        )
        page.get_by_role("button", name="Download").click()
        expect(page.locator("#onboarding")).to_be_hidden()
        seen = page.evaluate("window.__progress")
        assert seen["last"] == [1, 1]  # done
        assert any(step > 1 for step in seen["steps"])  # it moved through byte counts first
        page.click("#btn-model")
        expect(page.locator("#model-menu .model-title")).to_have_text("llama3.2:3b")
        page.click("#model-menu .model-row")
        expect(page.locator("#model-name")).to_have_text("llama3.2:3b")
        fake.script(text_turn("Hi from the new model."))
        app.send("Hello")
        expect(page.locator(".msg.assistant .content")).to_have_text("Hi from the new model.")
        assert fake.chat_requests[0]["model"] == "llama3.2:3b"


def test_model_picker_shows_capabilities_and_sets_the_chat_model(app: App) -> None:
    page = app.page
    page.click("#btn-model")
    rows = page.locator("#model-menu .model-row")
    expect(rows).to_have_count(3)
    qwen = rows.filter(has_text="qwen3:8b")
    expect(qwen.locator(".cap")).to_have_text(["Tools", "Thinking"])
    expect(qwen).to_have_attribute("aria-selected", "true")
    gemma = rows.filter(has_text="gemma3:4b")
    expect(gemma.locator(".cap")).to_have_text(["Tools via prompt", "Vision"])
    rows.filter(has_text="gemma3:4b").click()
    expect(page.locator("#model-name")).to_have_text("gemma3:4b")
    # A vision model takes images; the others do not.
    expect(page.locator("#btn-attach")).to_be_enabled()
    app.fake.script(text_turn("Plain chat."))
    app.send("Hi")
    expect(page.locator(".msg.assistant .content")).to_have_text("Plain chat.")
    # gemma3 has no native tools: they are described in its prompt instead
    assert "<tool_call>" in app.fake.chat_requests[-1]["messages"][0]["content"]
    assert app.core.list_sessions()[0]["model"] == "gemma3:4b"


def test_keyboard_shortcuts(app: App) -> None:
    page = app.page
    app.fake.script(text_turn("One."))
    page.fill("#prompt", "line one")
    page.press("#prompt", "Shift+Enter")
    page.keyboard.type("line two")
    expect(page.locator("#prompt")).to_have_value("line one\nline two")
    page.press("#prompt", "Enter")
    expect(page.locator(".msg.user .bubble")).to_have_text("line one\nline two")
    expect(page.locator(".msg.assistant .content")).to_have_text("One.")
    page.keyboard.press("Control+k")
    expect(page.locator("#session-search")).to_be_focused()
    page.keyboard.type("zzz")
    expect(page.locator("#session-list .session")).to_have_count(0)
    page.fill("#session-search", "line")
    expect(page.locator("#session-list .session")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(page.locator("#sidebar")).not_to_have_class("sidebar open")
    page.keyboard.press("Control+n")
    expect(page.locator(".msg")).to_have_count(0)
    expect(page.locator("#prompt")).to_be_focused()
    page.keyboard.press("Escape")
    eventually(lambda: app.harness.hide_calls == 1)


def test_rename_and_delete_a_chat(app: App) -> None:
    page = app.page
    app.fake.script(text_turn("Answer."))
    app.send("Old title")
    expect(page.locator(".msg.assistant .content")).to_have_text("Answer.")
    page.click("#btn-sidebar")
    row = page.locator("#session-list .session").first
    row.get_by_role("button", name="Rename").click()
    page.fill("#session-list .rename", "New title")
    page.press("#session-list .rename", "Enter")
    expect(page.locator("#session-title")).to_have_text("New title")
    assert app.core.list_sessions()[0]["title"] == "New title"
    row = page.locator("#session-list .session").first
    row.get_by_role("button", name="Delete").click()
    page.locator("#session-list .session.confirm").get_by_role("button", name="Delete").click()
    expect(page.locator("#session-list .session")).to_have_count(0)
    expect(page.locator("#session-title")).to_have_text("New chat")
    assert app.core.list_sessions() == []


def test_workspace_folder_per_chat(app: App) -> None:
    page = app.page
    sub = app.workspace / "project"
    sub.mkdir()
    page.click("#btn-workspace")  # no native dialog in a browser: a path field instead
    page.fill("#workspace-input", str(sub))
    page.press("#workspace-input", "Enter")
    expect(page.locator("#workspace-path")).to_contain_text("project")
    app.fake.script(text_turn("Ok."))
    app.send("Hi")
    expect(page.locator(".msg.assistant .content")).to_have_text("Ok.")
    assert app.core.list_sessions()[0]["workspace"] == str(sub)
    # A folder outside the allowed ones is refused with a message.
    page.click("#btn-workspace")
    page.fill("#workspace-input", "/etc")
    page.press("#workspace-input", "Enter")
    expect(page.locator(".toast.error")).to_be_visible()
    assert app.core.list_sessions()[0]["workspace"] == str(sub)


def _gap_after_label(page: Any, step: int) -> float:
    """Pixels between a step's label and the link or command after it."""
    return float(
        page.locator("#onboarding .ob-steps li")
        .nth(step)
        .evaluate(
            "li => li.lastElementChild.getBoundingClientRect().left"
            " - li.querySelector('.ob-step-label').getBoundingClientRect().right"
        )
    )


def test_onboarding_speaks_chinese_down_to_its_details(make_app: AppFactory) -> None:
    """A regression: the details were English, and 安装 Ollama： had a space."""
    down = f"http://127.0.0.1:{closed_port()}"
    app = make_app(endpoint=down, language="zh-CN")
    page = app.page
    card = page.locator("#onboarding .ob-card")
    expect(card.locator("h2")).to_have_text("Ollama 没有运行")
    card.locator(".ob-details summary").click()
    cause = card.locator(".ob-cause")
    expect(cause).to_have_text(f"{down} 没有响应：那里没有运行服务，或连接被阻止。")
    # The message as it came stays, quoted and marked as English for screen readers.
    raw = card.locator("blockquote.ob-error")
    expect(raw).to_have_attribute("lang", "en")
    expect(raw).to_contain_text(down)
    # A full-width colon brings its own room: no extra space before the link or the command.
    assert "： " not in card.locator(".ob-steps").inner_text()
    assert _gap_after_label(page, 0) < 1 and _gap_after_label(page, 1) < 1
    # Switched to English, the label gets its space back and the cause is English.
    page.evaluate("import('./js/lib/i18n.js').then((m) => m.setLanguage('en'))")
    expect(cause).to_have_text(
        f"Nothing answers at {down}: no server is running there, or the connection is blocked."
    )
    eventually(lambda: _gap_after_label(page, 0) > 2 and _gap_after_label(page, 1) > 2)
    assert app.page_errors == []
