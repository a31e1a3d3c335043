"""A batch of events lost on its way into the page is noticed and repaired (web/js/lib/bridge.js).

The desktop app numbers its batches; a gap in the numbers makes the page rebuild approvals,
chats and state from Core's snapshots instead of going on with a silently wrong view."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.waiting import eventually
from tests.web.conftest import App

pytestmark = pytest.mark.web

GHOST = {
    "type": "approval_needed",
    "session_id": "s_ghost",
    "call_id": "c_ghost",
    "name": "write_file",
    "arguments": {"path": "ghost.txt", "content": "boo"},
    "risk": "write",
    "preview": {},
    "can_remember": False,
    "expires_at": 4102444800,
}


def dispatch(app: App, events: list[dict[str, object]], seq: int | None = None) -> object:
    return app.page.evaluate("([ev, seq]) => window.metona.dispatch(ev, seq)", [events, seq])


def api_calls(app: App, name: str) -> int:
    return sum(1 for line in list(app.harness.requests) if line.endswith(f"/api/{name}"))


def test_a_gap_in_the_numbers_resyncs_from_snapshots(app: App) -> None:
    # The page believes an approval waits (its resolution was in the batch that got lost).
    dispatch(app, [GHOST])
    expect(app.page.locator("#approval")).to_be_visible()
    assert dispatch(app, [], 1) == 1  # numbered batches are acknowledged with their number
    before = api_calls(app, "pending_approvals")
    assert dispatch(app, [], 3) == 3  # batch 2 never arrived
    eventually(lambda: api_calls(app, "pending_approvals") > before)
    expect(app.page.locator("#approval")).to_be_hidden()
    assert api_calls(app, "status") >= 1 and api_calls(app, "list_sessions") >= 1


def test_consecutive_numbers_do_not_resync(app: App) -> None:
    before = api_calls(app, "pending_approvals")
    for seq in range(10, 15):
        assert dispatch(app, [], seq) == seq
    app.page.wait_for_timeout(300)  # nothing to wait for: prove nothing was asked
    assert api_calls(app, "pending_approvals") == before


def test_a_second_key_is_refused(app: App) -> None:
    assert app.page.evaluate("window.metona.key('harness-secret-0123456789')") is True
    assert app.page.evaluate("window.metona.key('someone-elses-secret-000000')") is False
