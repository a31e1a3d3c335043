"""A chat's snapshot that left Core before a turn's events is never the last word.

The page reads a chat from Core (``get_session``) after a Retry, an edit or a switch of chats,
and replaces the log with it. Events that arrived while that snapshot was on its way were drawn
on the old log and go with it: a turn that ran in that window (a quick answer after Retry) was
lost from the screen until the chat was opened again (seen in CI at load average 5). These
tests take the snapshot early, hold it until the turn's answer is on screen, then let it land.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Route, expect

from tests.fakes.ollama_server import FakeOllama, error_turn, text_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

ANSWER = "恢复了 ✅ 👩‍👩‍👧 \u202eevil\u202c done"


def test_a_turn_that_ends_while_the_snapshot_is_on_its_way_stays_on_screen(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama)
    page = app.page
    fake_ollama.script(error_turn(500, "model crashed"))
    app.send("你好 hi")
    retry = page.get_by_role("button", name="Retry")
    expect(retry).to_have_count(1)

    # The snapshot is taken at once (before the answer exists) and held back.
    held: list[tuple[Route, Any]] = []
    taken: list[bool] = []

    def early_snapshot(route: Route) -> None:
        if taken:  # a second reading goes straight through
            route.continue_()
            return
        taken.append(True)
        held.append((route, route.fetch()))

    fake_ollama.script(text_turn(ANSWER, delay=1.0))
    page.route("**/api/get_session", early_snapshot)
    retry.click()
    answer = page.locator(".msg.assistant .content").last
    expect(answer).to_contain_text("恢复了 ✅", timeout=30_000)  # drawn from the events
    expect(page.locator(".msg.assistant.streaming")).to_have_count(0, timeout=30_000)
    assert held, "the page read the chat after Retry"
    route, response = held[0]
    # The stale snapshot lands: the page must read the chat again, and keep the answer.
    with page.expect_request("**/api/get_session", timeout=15_000):
        route.fulfill(response=response)
    expect(answer).to_contain_text("恢复了 ✅", timeout=15_000)
    expect(page.locator(".msg.assistant .content").last).to_contain_text("done")
    page.unroute("**/api/get_session")
    assert app.page_errors == []
