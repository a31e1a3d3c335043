"""A big chat opens with its last messages and loads older ones as the user scrolls up; the
page forgets what it kept for chats that are closed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn
from tests.web.conftest import App
from tray_app.store.records import MessageRecord

pytestmark = pytest.mark.web

PAIRS = 65  # 130 messages: the first page (40) and three more


def seed_chat(app: App, title: str = "Big chat") -> str:
    chats = app.core._chats
    session = chats.create_session(model="qwen3:8b", workspace=None, title=title)
    for i in range(PAIRS):
        chats.add_message(
            MessageRecord(
                session_id=session.id,
                role="user",
                content=f"Question {i} 中文",
                created_at=1000.0 + 2 * i,
            )
        )
        chats.add_message(
            MessageRecord(
                session_id=session.id,
                role="assistant",
                model="qwen3:8b",
                content=f"**Answer {i}** 😀\n\n- point {i}\n",
                created_at=1001.0 + 2 * i,
            )
        )
    return session.id


def test_a_big_chat_opens_with_its_last_messages_and_loads_older_ones_on_scroll(
    app: App,
) -> None:
    seed_chat(app)
    app.reload()
    page = app.page
    msgs = page.locator("#messages .msg")
    expect(msgs).to_have_count(40)
    expect(msgs.last).to_contain_text(f"Answer {PAIRS - 1}")
    expect(msgs.first).to_contain_text("Question 45")
    page.wait_for_function(
        "() => { const l = document.querySelector('#log');"
        " return l.scrollHeight - l.scrollTop - l.clientHeight < 4; }"
    )
    # Scrolling up to the top loads the page before, and the view stays on what was read.
    page.mouse.move(200, 300)
    page.mouse.wheel(0, -100_000)
    expect(msgs).to_have_count(80)
    expect(msgs.first).to_contain_text("Question 25")
    expect(page.locator("#messages .msg", has_text="Question 45")).to_be_in_viewport()
    # Keyboard users have the button; the last page removes it.
    older = page.get_by_role("button", name="Show earlier messages")
    older.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#messages .msg').length >= 120")
    page.mouse.wheel(0, -100_000)
    expect(msgs).to_have_count(130)
    expect(older).to_have_count(0)
    expect(msgs.first).to_contain_text("Question 0 中文")
    # One answer footer each, and Retry only on the newest answer.
    expect(page.locator(".msg.assistant").last.get_by_role("button", name="Retry")).to_be_visible()
    expect(page.locator(".msg.assistant").first.get_by_role("button", name="Retry")).to_have_count(
        0
    )


def test_a_closed_chat_leaves_nothing_behind_in_the_page(app: App) -> None:
    page = app.page
    app.fake.script(text_turn("First chat answer."), text_turn("Second chat answer."))
    app.send("One")
    expect(page.locator(".msg.assistant .content")).to_have_text("First chat answer.")
    first = app.core.list_sessions()[0]["id"]
    kept = """async (id) => {
      const { store } = await import(new URL('js/lib/store.js', document.baseURI).href);
      return [...store.live.values(), ...store.calls.values()]
        .filter((r) => r.session_id === id).length
        + (store.turnEpoch.has(id) ? 1 : 0) + (store.sessionWorkspace.has(id) ? 1 : 0);
    }"""
    assert page.evaluate(kept, first) > 0
    page.keyboard.press("Control+n")
    app.send("Two")
    expect(page.locator(".msg.assistant .content")).to_have_text("Second chat answer.")
    assert page.evaluate(kept, first) == 0
    # Reopened, it is all there again (from Core).
    page.click("#btn-sidebar")
    page.locator("#session-list .session-open", has_text="One").click()
    expect(page.locator(".msg.assistant .content")).to_have_text("First chat answer.")
