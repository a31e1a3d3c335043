"""The chat in a real browser: streaming, stop, sessions, edit and retry."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import slow_turn, text_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

ANSWER = (
    "# Plan\n\nThe answer has **bold** text and `inline code`.\n\n"
    "```python\ndef double(x):\n    return x * 2\n```\n\n- first item\n- second item\n"
)


def test_a_streamed_answer_appears_rendered(app: App) -> None:
    app.fake.script(text_turn(ANSWER, thinking="Consider the question.", chunk_chars=3))
    app.send("Make a plan")
    page = app.page
    expect(page.locator(".msg.user .bubble")).to_have_text("Make a plan")
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming")
    expect(answer.locator(".content h1")).to_have_text("Plan")
    expect(answer.locator(".content strong")).to_have_text("bold")
    expect(answer.locator(".content li")).to_have_count(2)
    # Code is highlighted and has a copy button; thinking sits in a collapsible block.
    expect(answer.locator(".code-block .hljs-keyword").first).to_have_text("def")
    expect(answer.locator(".code-copy")).to_be_visible()
    expect(answer.locator("details.thinking summary")).to_be_visible()
    expect(answer.locator("details.thinking .think-md")).to_contain_text("Consider the question.")
    # Model badge and token count on the finished message; the title comes from the message.
    expect(answer.locator(".model-badge")).to_have_text("qwen3:8b")
    expect(answer.locator(".msg-foot .stat").first).to_contain_text("token")
    expect(page.locator("#session-title")).to_have_text("Make a plan")


def test_finished_blocks_render_once_while_the_tail_grows(app: App) -> None:
    paragraphs = "".join(f"Paragraph number {i} of a long answer.\n\n" for i in range(40))
    app.fake.script(slow_turn(paragraphs, delay=0.01, chunk_chars=6))
    app.send("Write a lot")
    page = app.page
    first = page.locator(".msg.assistant .content .md-block:not(.md-tail)").first
    expect(first).to_contain_text("Paragraph number 0")
    # Tag the first committed block; if later frames re-rendered it, the tag would be gone.
    first.evaluate("el => { el.dataset.seen = 'yes'; }")
    expect(page.locator(".msg.assistant")).not_to_have_class("msg assistant streaming")
    blocks = page.locator(".msg.assistant .content .md-block")
    expect(blocks).to_have_count(40)
    assert blocks.first.get_attribute("data-seen") == "yes"
    expect(blocks.last).to_have_text("Paragraph number 39 of a long answer.")


def test_stop_mid_stream_keeps_the_partial_answer(app: App) -> None:
    app.fake.script(slow_turn("word " * 400, delay=0.03, chunk_chars=5))
    app.send("Talk for a long time")
    page = app.page
    content = page.locator(".msg.assistant .content")
    expect(content).to_contain_text("word word word")
    page.click("#btn-stop")
    answer = page.locator(".msg.assistant").last
    expect(answer).to_have_class("msg assistant stopped")
    expect(answer.locator(".badge.warn")).to_have_text("Stopped")
    expect(page.locator("#btn-send")).to_be_visible()
    shown = content.inner_text().strip()
    assert shown.startswith("word word")
    assert len(shown) < len("word " * 400) - 5
    # What the page shows is what was kept.
    session_id = app.core.list_sessions()[0]["id"]
    assert app.core.wait_idle(session_id)
    stored = [m for m in app.core.get_session(session_id)["messages"] if m["role"] == "assistant"]
    assert stored[-1]["stopped"] is True
    assert stored[-1]["content"].strip() == shown


def test_a_session_survives_switching_away_and_back(app: App) -> None:
    page = app.page
    app.fake.script(text_turn("Answer for the first chat."), text_turn("Answer for the second."))
    app.send("First question")
    expect(page.locator(".msg.assistant .content")).to_have_text("Answer for the first chat.")
    page.keyboard.press("Control+n")
    expect(page.locator(".msg")).to_have_count(0)
    app.send("Second question")
    expect(page.locator(".msg.assistant .content")).to_have_text("Answer for the second.")

    page.click("#btn-sidebar")
    sessions = page.locator("#session-list .session-open")
    expect(sessions).to_have_count(2)
    page.locator("#session-list .session-open", has_text="First question").click()
    expect(page.locator(".msg.user .bubble")).to_have_text("First question")
    expect(page.locator(".msg.assistant .content")).to_have_text("Answer for the first chat.")
    expect(page.locator("#session-title")).to_have_text("First question")

    page.click("#btn-sidebar")
    page.locator("#session-list .session-open", has_text="Second question").click()
    expect(page.locator(".msg.assistant .content")).to_have_text("Answer for the second.")
    # And after a reload everything is still there.
    app.reload()
    expect(page.locator(".msg.assistant .content")).to_have_text("Answer for the second.")


def test_switching_to_a_chat_mid_answer_shows_all_of_it(app: App) -> None:
    page = app.page
    app.fake.script(slow_turn("stream " * 120, delay=0.02, chunk_chars=7), text_turn("Other."))
    app.send("Long one")
    expect(page.locator(".msg.assistant .content")).to_contain_text("stream stream")
    page.keyboard.press("Control+n")
    app.send("Meanwhile")
    expect(page.locator(".msg.assistant .content")).to_have_text("Other.")
    page.click("#btn-sidebar")
    page.locator("#session-list .session-open", has_text="Long one").click()
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=20_000)
    expect(answer.locator(".content")).to_have_text(("stream " * 120).strip())


def test_edit_and_resend_the_last_message_and_retry(app: App) -> None:
    page = app.page
    app.fake.script(text_turn("First answer."), text_turn("Edited answer."), text_turn("Again."))
    app.send("Original question")
    expect(page.locator(".msg.assistant .content")).to_have_text("First answer.")
    page.locator(".msg.user").hover()
    page.locator(".msg.user .act").nth(1).click()
    page.fill(".edit-area", "Better question")
    page.press(".edit-area", "Enter")
    expect(page.locator(".msg.user .bubble")).to_have_text("Better question")
    expect(page.locator(".msg.assistant")).to_have_count(1)
    expect(page.locator(".msg.assistant .content")).to_have_text("Edited answer.")
    assert app.fake.chat_requests[1]["messages"][-1]["content"] == "Better question"
    page.get_by_role("button", name="Retry").click()
    expect(page.locator(".msg.assistant")).to_have_count(1)
    expect(page.locator(".msg.assistant .content")).to_have_text("Again.")
    expect(page.locator(".msg.user")).to_have_count(1)


def test_a_failed_answer_offers_retry(app: App) -> None:
    from tests.fakes.ollama_server import error_turn

    page = app.page
    app.fake.script(error_turn(500, "model crashed"), text_turn("Recovered."))
    app.send("Hello")
    notice = page.locator(".notice.error")
    expect(notice).to_contain_text("model crashed")
    notice.get_by_role("button").click()
    expect(page.locator(".msg.assistant .content").last).to_have_text("Recovered.")


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cf00000301010018dd8db40000000049454e44ae426082"
)


def test_images_attach_only_for_vision_models(app: App, tmp_path: object) -> None:
    page = app.page
    expect(page.locator("#btn-attach")).to_be_disabled()  # qwen3:8b cannot see
    page.click("#btn-model")
    page.locator("#model-menu .model-row", has_text="gemma3:4b").click()
    expect(page.locator("#btn-attach")).to_be_enabled()
    page.set_input_files(
        "#file-input", files=[{"name": "dot.png", "mimeType": "image/png", "buffer": PNG}]
    )
    expect(page.locator("#attachments .thumb")).to_have_count(1)
    app.fake.script(text_turn("A single dot."))
    app.send("What is this?")
    expect(page.locator(".msg.user .msg-images img")).to_have_count(1)
    expect(page.locator(".msg.assistant .content")).to_have_text("A single dot.")
    expect(page.locator("#attachments")).to_be_hidden()
    sent = app.fake.chat_requests[0]["messages"][-1]
    assert sent["images"] and isinstance(sent["images"][0], str)


def test_every_control_has_a_name(app: App) -> None:
    page = app.page
    app.fake.script(text_turn("Hi."))
    app.send("Hello")
    expect(page.locator(".msg.assistant .msg-foot .act").first).to_be_visible()
    page.click("#btn-settings")
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, input, select, textarea')]
        .filter((el) => el.checkVisibility() && el.type !== 'hidden')
        .filter((el) => {
          const label = el.labels && [...el.labels].some((l) => l.textContent.trim());
          return !(label || el.getAttribute('aria-label') || el.textContent.trim()
            || el.getAttribute('title'));
        })
        .map((el) => el.outerHTML.slice(0, 80))"""
    )
    assert unnamed == []
