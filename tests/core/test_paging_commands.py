"""Core's paged reads (keyset): the last messages of a chat first, older ones on request."""

from __future__ import annotations

from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn


def test_a_chat_opens_with_its_last_messages_and_pages_back(make_rig: Any) -> None:
    rig: Rig = make_rig()
    sid = rig.session()
    for index in range(3):
        rig.fake.script(text_turn(f"答案 {index} 🙂"))
        _, turn = rig.send(f"问题 {index}", session_id=sid)
        rig.finish(turn)
    whole = rig.core.get_session(sid)
    assert len(whole["messages"]) == 6 and whole["more_before"] is False
    opened = rig.core.get_session(sid, limit=4)
    assert opened["messages"] == whole["messages"][2:] and opened["more_before"] is True
    older = rig.core.get_messages(sid, before=opened["messages"][0]["id"], limit=4)
    assert older["messages"] == whole["messages"][:2] and older["more_before"] is False
    assert older["tool_calls"] == []


def test_the_session_list_pages_with_a_cursor(make_rig: Any) -> None:
    rig: Rig = make_rig()
    made = [rig.session() for _ in range(5)]
    first = rig.core.list_sessions(limit=2)
    rest = rig.core.list_sessions(
        limit=1000, before={"updated_at": first[-1]["updated_at"], "id": first[-1]["id"]}
    )
    assert sorted(s["id"] for s in first + rest) == sorted(made)
    assert len(first) == 2 and len(rest) == 3
