"""A call's stored result is what really happened, also when the user stops the turn meanwhile."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import tool_turn
from tray_app.agent import calls


def final_update(rig: Rig, call_id: str) -> Any:
    return rig.log.wait_for(
        lambda e: (
            getattr(e, "type", "") == "tool_call_update"
            and e.call_id == call_id
            and e.status in ("success", "error", "cancelled")
        )
    )


def stop_while_running(rig: Rig) -> tuple[str, Any]:
    """The user stops the turn while the ``stubborn`` tool runs: the chat and the call's last
    update."""
    rig.fake.script(tool_turn([("stubborn", {"seconds": 60})]))
    sid, turn = rig.send("change it")
    assert rig.slow_started.wait(10)
    call = rig.log.wait_type("tool_call")
    rig.core.abort(sid)
    assert rig.finish(turn).stop_reason == "aborted"
    return sid, final_update(rig, call.call.call_id)


def test_a_call_that_finishes_after_the_stop_is_reported_as_done(make_rig: Any) -> None:
    rig: Rig = make_rig(sqlite=True)
    sid, update = stop_while_running(rig)
    assert update.status == "success" and update.result == {"success": True, "changed": True}
    assert rig.notes == ["stubborn"]
    (stored,) = rig.core.get_session(sid)["tool_calls"]
    assert stored["status"] == "success" and stored["result"]["success"] is True
    answers = [m for m in rig.core.get_session(sid)["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"])["success"] for m in answers] == [True]


def test_a_call_still_running_after_the_grace_says_it_may_yet_finish(
    make_rig: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(calls, "TOOL_STOP_GRACE", 0.01)
    rig: Rig = make_rig()
    _, update = stop_while_running(rig)
    assert update.status == "cancelled"
    assert "may yet finish" in update.result["error"]
