"""The event contract between ``tray_app/base/events.py`` and the page, kept by tests, not by hand.

Every member of the union has a ``case`` in ``web/js/chat/events.js`` and every ``case`` there is a
member; every notice and failure code (``Literal``s in base/events.py) has its text in both locales,
with the same placeholders; every tray request the union allows is handled by ``web/js/app.js``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest

from tray_app.base import events
from tray_app.desktop.popup.wire import item

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
LOCALES = ("en", "zh-CN")


def _union_members() -> list[type[Any]]:
    return list(get_args(get_args(events.Event)[0]))


def python_event_types() -> set[str]:
    return {cls.model_fields["type"].default for cls in _union_members()}


def page_event_types(source: str) -> set[str]:
    """The ``case 'x':`` labels of the event switch (the page's only dispatch on ``type``)."""
    return set(re.findall(r"^\s*case '([a-z_]+)':", source, flags=re.MULTILINE))


def _locale(code: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "locales" / f"{code}.json").read_text("utf-8"))
    return data


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_the_reader_finds_cases_and_only_cases() -> None:
    source = "switch (ev.type) {\n  case 'a_b':\n  case 'c': {\n // case 'no'\n    x('case');\n"
    assert page_event_types(source) == {"a_b", "c"}


def test_the_page_handles_exactly_the_events_the_union_holds() -> None:
    page = page_event_types((WEB / "js" / "chat" / "events.js").read_text(encoding="utf-8"))
    python = python_event_types()
    assert len(python) == len(_union_members()), "two members share a type"
    assert "ui_action" in python and "turn_failed" in python
    assert python - page == set(), "events the page never handles"
    assert page - python == set(), "page handlers for events nobody sends"


@pytest.mark.parametrize(
    ("prefix", "literal"),
    [("notice", events.NoticeCode), ("error", events.FailureCode)],
)
def test_every_code_has_text_in_every_locale(prefix: str, literal: Any) -> None:
    codes = get_args(literal)
    assert codes
    texts = {lang: _locale(lang) for lang in LOCALES}
    for code in codes:
        key = f"{prefix}.{code}"
        for lang in LOCALES:
            assert texts[lang].get(key, "").strip(), f"{key} has no text in {lang}.json"
        assert _placeholders(texts["en"][key]) == _placeholders(texts["zh-CN"][key]), key


def test_the_failure_title_the_page_falls_back_to_exists() -> None:
    for lang in LOCALES:
        assert _locale(lang).get("error.title", "").strip()


def test_every_tray_request_is_handled_by_the_page() -> None:
    source = (WEB / "js" / "app.js").read_text(encoding="utf-8")
    handled = set(re.findall(r"ev\.action === '([a-z_]+)'", source))
    assert set(get_args(events.UiActionName)) == handled


def test_codes_outside_the_literals_are_refused() -> None:
    with pytest.raises(ValueError, match="code"):
        events.Notice(session_id="s", code="made_up", message="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="code"):
        events.TurnFailed(session_id="s", turn_id="t", code="oops", message="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="action"):
        events.parse_event('{"type": "ui_action", "action": "rm -rf"}')


def test_a_tray_request_with_hostile_ids_round_trips_to_the_page_shape() -> None:
    sid = "会话 👩🏽‍💻 \u202eevil\u202c" + "x" * 10_000
    request = events.UiAction(action="show_pending", session_id=sid, call_id="调用-1")
    back = events.parse_event(request.model_dump_json())
    assert back == request
    plain = item(back)
    assert plain["type"] == "ui_action" and plain["session_id"] == sid
    assert plain["call_id"] == "调用-1"


def test_call_events_use_the_record_field_names() -> None:
    """One shape for a tool call: what the events say about a call is named as in its record."""
    from tray_app.base.messages import ToolCallRecord

    record = set(ToolCallRecord.model_fields)
    envelope = {"type", "at", "session_id", "call_id"}
    assert events.ToolCallEvent.model_fields["call"].annotation is ToolCallRecord
    update = set(events.ToolCallUpdate.model_fields) - envelope
    assert update - record == {"progress"}, "tool_call_update fields the record does not have"
    approval = set(events.ApprovalNeeded.model_fields) - envelope
    assert approval - record == {"can_remember", "expires_at", "rule_folder", "can_rule"}
