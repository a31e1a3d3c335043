"""An event that throws while the page applies a batch does not stall the pump
(web/js/chat/events.js).

The batch's other events still apply, later batches still apply, and the page resynchronises
from Core's snapshots because its view may now be wrong."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.waiting import eventually
from tests.web.conftest import App

pytestmark = pytest.mark.web

# actions.sessionUpdated reads session.id: a deleted session of null throws in the middle.
POISON = {"type": "session_updated", "session": None, "deleted": True}
TITLE = "ثبت 日本語 🧑🏽‍💻 \u202etxet\u202c"


def session(sid: str, title: str) -> dict[str, object]:
    return {
        "type": "session_updated",
        "deleted": False,
        "session": {"id": sid, "title": title, "model": "qwen3:8b", "updated_at": 4102444800,
                    "created_at": 4102444800, "message_count": 0},
    }  # fmt: skip


def dispatch(app: App, events: list[dict[str, object]]) -> object:
    return app.page.evaluate("(ev) => window.metona.dispatch(ev)", events)


def api_calls(app: App, name: str) -> int:
    return sum(1 for line in list(app.harness.requests) if line.endswith(f"/api/{name}"))


def test_a_throwing_event_neither_drops_its_batch_nor_stalls_later_ones(app: App) -> None:
    app.page.evaluate(
        "window.__errors = []; const e = console.error;"
        "console.error = (...a) => { window.__errors.push(String(a[0])); e(...a); }"
    )
    before = api_calls(app, "pending_approvals")
    # the poison sits in the middle: the session before and after it must both show
    dispatch(app, [session("s_before", "before " + TITLE), POISON, session("s_after", TITLE)])
    sidebar = app.page.locator("#sidebar")
    expect(sidebar.get_by_text("before " + TITLE)).to_have_count(1)
    expect(sidebar.get_by_text(TITLE, exact=True)).to_have_count(1)
    # the failure was logged and the page asked Core for its snapshots
    eventually(lambda: api_calls(app, "pending_approvals") > before)
    assert any("session_updated" in e for e in app.page.evaluate("window.__errors"))
    # the pump still runs: batches after a failing one apply
    dispatch(app, [POISON])
    dispatch(app, [session("s_late", "later " + TITLE)])
    expect(sidebar.get_by_text("later " + TITLE)).to_have_count(1)
