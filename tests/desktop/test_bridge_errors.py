"""Each Core command's failure reaches the page as its code, through the real Bridge and a real
Core (real SQLite chat store, fake model server over loopback HTTP): one channel, never
``ok: false`` inside ``data``."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

import tray_app.base.errors as errors_module
from tests.fakes.core_rig import Rig
from tests.fakes.turns import slow_turn
from tray_app.base.errors import ERROR_CODES, InvalidRequest, MetonaError, NotAnswering, error_code
from tray_app.desktop.popup.bridge import Bridge

HOSTILE = "‮gpj.exe 你好 👋"  # bidi override, CJK, emoji in ids and text


def refused(envelope: dict[str, Any], code: str) -> str:
    assert envelope["ok"] is False, envelope
    assert envelope["code"] == code, envelope
    assert "data" not in envelope
    return str(envelope["error"])


@pytest.fixture
def rig(make_rig: Any) -> Rig:
    made: Rig = make_rig(sqlite=True)  # the real chat store
    return made


@pytest.fixture
def bridge(rig: Rig, tmp_path: Path) -> Bridge:
    return Bridge(rig.core, save_file=lambda name: str(tmp_path / name))


def test_a_missing_chat_is_not_found_for_every_command(bridge: Bridge) -> None:
    missing = {"session_id": "s_gone"}
    for method, payload in [
        ("get_session", missing),
        ("update_session", {**missing, "title": HOSTILE}),
        ("delete_session", missing),
        ("export_session", missing),
        ("send_message", {**missing, "text": HOSTILE}),
        ("retry", missing),
        ("edit_last", {**missing, "text": "again"}),
    ]:
        assert "s_gone" in refused(getattr(bridge, method)(payload), "not_found"), method


def test_paging_from_a_message_that_is_not_there_is_not_found(bridge: Bridge) -> None:
    sid = bridge.new_session({})["data"]["id"]
    page = bridge.get_messages({"session_id": sid, "before": "m_gone", "limit": 5})
    assert "m_gone" in refused(page, "not_found")


def test_a_malformed_paging_cursor_is_an_invalid_request(rig: Rig) -> None:
    for before in ({}, {"updated_at": "soon", "id": "s_1"}, {"id": "s_1"}):
        with pytest.raises(InvalidRequest):
            rig.core.list_sessions(before=before)


def test_a_busy_chat_refuses_a_second_message_until_stopped(bridge: Bridge, rig: Rig) -> None:
    rig.fake.script(slow_turn("a long answer " * 50, delay=0.2))
    sid = bridge.new_session({})["data"]["id"]
    turn = bridge.send_message({"session_id": sid, "text": "first"})["data"]["turn_id"]
    assert "still answering" in refused(
        bridge.send_message({"session_id": sid, "text": HOSTILE}), "busy"
    )
    refused(bridge.retry({"session_id": sid}), "busy")
    refused(bridge.edit_last({"session_id": sid, "text": "x"}), "busy")
    assert bridge.abort({"session_id": sid})["data"] == {"stopped": 1}
    rig.finish(turn)
    assert rig.core.wait_idle(sid)
    rig.fake.script(slow_turn("ok", delay=0))
    assert bridge.send_message({"session_id": sid, "text": "second"})["ok"] is True


def test_requests_that_cannot_be_done_are_invalid(bridge: Bridge, rig: Rig) -> None:
    sid = bridge.new_session({})["data"]["id"]
    refused(bridge.retry({"session_id": sid}), "invalid_request")  # nothing to send again
    a_file = rig.workspace / "a.txt"
    a_file.write_text("x", encoding="utf-8")
    refused(bridge.new_session({"workspace": str(a_file)}), "invalid_request")
    refused(bridge.open_link({"url": "javascript:alert(1)"}), "invalid_request")


def test_a_folder_outside_the_rules_is_a_sandbox_violation(bridge: Bridge, rig: Rig) -> None:
    outside = rig.workspace.parent / "elsewhere"
    outside.mkdir()
    refused(bridge.new_session({"workspace": str(outside)}), "sandbox_violation")
    sid = bridge.new_session({})["data"]["id"]
    refused(
        bridge.update_session({"session_id": sid, "workspace": str(outside)}),
        "sandbox_violation",
    )


def test_a_decision_for_a_call_that_no_longer_waits_is_not_found(bridge: Bridge) -> None:
    refused(bridge.decide({"call_id": "c_gone", "approve": True}), "not_found")


def test_invalid_settings_carry_the_fields_and_the_settings_in_force(
    bridge: Bridge, rig: Rig
) -> None:
    before = rig.core.get_settings()["temperature"]
    envelope = bridge.update_settings({"patch": {"temperature": "hot", "theme": "dark"}})
    refused(envelope, "invalid_settings")
    assert set(envelope["details"]["errors"]) == {"temperature"}
    assert envelope["details"]["settings"]["temperature"] == before
    assert rig.core.get_settings()["theme"] != "dark", "nothing applies when a field is bad"
    unknown = bridge.update_settings({"patch": {HOSTILE: 1}})
    assert unknown["details"]["errors"] == {HOSTILE: "unknown setting"}
    saved = bridge.update_settings({"patch": {"theme": "dark"}})
    assert saved["ok"] is True and saved["data"]["settings"]["theme"] == "dark"


def test_no_secret_store_is_unsupported(bridge: Bridge) -> None:
    refused(bridge.set_api_key({"key": "sk-1"}), "unsupported")


def test_undo_with_nothing_to_undo_fails_as_undo_failed(bridge: Bridge) -> None:
    assert "nothing to undo" in refused(bridge.undo_last({}), "undo_failed")
    refused(bridge.undo({"call_id": "c_never"}), "undo_failed")


def test_a_bug_is_internal_and_logged(rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def status(self) -> Any:
            return 1 / 0

    refused(Bridge(Broken()).status({}), "internal")  # type: ignore[arg-type]
    assert "bridge command failed" in caplog.text


def test_every_error_class_is_drawn_in_the_tree_and_codes_are_distinct() -> None:
    classes = [
        cls
        for _, cls in inspect.getmembers(errors_module, inspect.isclass)
        if issubclass(cls, MetonaError)
    ]
    assert set(ERROR_CODES) <= set(classes)
    assert len(set(ERROR_CODES.values())) == len(ERROR_CODES), "one code per class"
    tree = errors_module.__doc__ or ""
    assert [c.__name__ for c in classes if c.__name__ not in tree] == []
    assert error_code(NotAnswering("slow")) == "timeout"
    assert error_code(ZeroDivisionError()) == "internal"
