"""What the loop-bounds tests share: a hostile text and ways to read what a rig's turn sent
and stored."""

from __future__ import annotations

from typing import Any

from tests.fakes.core_rig import Rig

HOSTILE = "长文🙂\u202eabc"  # CJK, an emoji (outside the BMP) and a bidi override


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def last_assistant(request: dict[str, Any]) -> dict[str, Any]:
    return [m for m in request["messages"] if m["role"] == "assistant"][-1]


def stored(rig: Rig, sid: str) -> list[dict[str, Any]]:
    return list(rig.core.get_session(sid)["messages"])


def assert_nothing_left_streaming(rig: Rig, sid: str) -> None:
    for message in stored(rig, sid):
        assert "streaming" not in message["stats"], message
    assert all(c["status"] not in ("pending", "running") for c in tool_calls_of(rig, sid))


def tool_calls_of(rig: Rig, sid: str) -> list[dict[str, Any]]:
    return list(rig.core.get_session(sid)["tool_calls"])
