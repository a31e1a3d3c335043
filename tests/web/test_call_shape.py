"""One shape for a tool call, through the real path: the fake model asks, Core runs the real
tool against real SQLite, the page in Chromium shows it. What the page keeps from the events
equals what Core's snapshot sends after a reload, field for field, under the record's names."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import App
from tray_app.base.messages import ToolCallRecord

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"
NAME = "笔记 👩🏽‍💻 \u202eevil\u202c.txt"
CONTENT = "第一行 ✨\nمرحبا 🇨🇳\n" + "长" * 3000

RECORD = """async (id) => {
  const { store } = await import('./js/lib/store.js');
  const record = store.calls.get(id);
  return record ? JSON.parse(JSON.stringify(record)) : null;
}"""


def page_record(app: App, call_id: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = app.page.evaluate(RECORD, call_id)
    return found


def test_the_page_keeps_one_shape_from_events_and_from_snapshots(app: App) -> None:
    target = app.workspace / NAME
    arguments = {"path": str(target), "content": CONTENT}
    app.fake.script(tool_turn([("write_file", arguments)], content="写入中"), text_turn("好了 ✅"))
    app.send("写我的笔记 🙂")
    page = app.page
    card = page.locator(".tool-card")
    expect(page.locator("#approval")).to_be_visible()
    page.click(APPROVE)
    expect(card).to_have_attribute("data-status", "success")
    expect(page.locator(".msg.assistant .content").last).to_have_text("好了 ✅")
    assert target.read_text(encoding="utf-8") == CONTENT

    session_id = app.core.list_sessions()[0]["id"]
    (stored,) = app.core.get_session(session_id)["tool_calls"]
    stored = json.loads(json.dumps(stored))  # as the page receives it
    assert set(stored) == set(ToolCallRecord.model_fields)
    assert stored["arguments"] == arguments and stored["status"] == "success"

    live = page_record(app, stored["call_id"])
    assert live is not None, "the page has no record of the call"
    # Built from the events: the record's names only, nothing renamed, nothing of the envelope.
    assert set(live) == set(ToolCallRecord.model_fields), set(live) ^ set(
        ToolCallRecord.model_fields
    )
    assert live == stored

    app.reload()  # a new page: the record now comes from Core's snapshot
    expect(card).to_have_attribute("data-status", "success")
    assert page_record(app, stored["call_id"]) == stored
    # The card reads the same ``arguments``; the page shows invisible controls as marks.
    card.locator(".tc-toggle").click()  # a finished card is one line until opened
    expect(card.locator(".tc-args")).to_contain_text("笔记 👩🏽⟨U+200D⟩💻 ⟨U+202E⟩evil")
