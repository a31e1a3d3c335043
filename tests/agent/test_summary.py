"""Long chats keep their memory: the oldest messages are summarised by the model, the summary is
stored in SQLite and reused. Real Core, real SQLite, both fake servers over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.turns import eof_turn, error_turn, slow_turn, text_turn
from tests.support.waiting import eventually
from tray_app.agent.summary import INSTRUCTIONS, SUMMARY_MAX_TOKENS

NUM_CTX = 4096  # a budget of 3,276 tokens: three answers of ~1,100 tokens no longer fit
SUMMARY = "SUMMARY: 用户在整理 🙂 notes.md; the first answers were about ANSWER1 and ANSWER2."


def answer(n: int) -> str:
    return f"ANSWER{n} " + "lorem ipsum " * 370  # ~1,100 tokens


def is_summary_request(body: dict[str, Any]) -> bool:
    first = body["messages"][0]
    return first["role"] == "system" and first["content"] == INSTRUCTIONS


def max_tokens(body: dict[str, Any]) -> Any:
    return body.get("max_tokens", body.get("options", {}).get("num_predict"))


def chat_turns(rig: Rig, sid: str, count: int) -> list[str]:
    turns = []
    for n in range(count):
        _, turn = rig.send(f"question {n + 1}", sid)
        assert rig.finish(turn).type == "turn_finished"
        turns.append(turn)
    return turns


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_older_turns_are_summarised_once_and_the_summary_is_reused(
    make_rig: Any, openai: bool
) -> None:
    rig: Rig = make_rig(openai=openai, sqlite=True, num_ctx=NUM_CTX, language="en")
    rig.fake.script(
        *(text_turn(answer(n), chunk_chars=400) for n in (1, 2, 3)),
        text_turn(SUMMARY),  # asked for in the fourth turn, before its answer
        text_turn("Fourth answer."),
        text_turn("Fifth answer."),
    )
    sid = rig.session()
    turns = chat_turns(rig, sid, 5)
    requests = rig.fake.chat_requests
    assert len(requests) == 6
    asking = [i for i, body in enumerate(requests) if is_summary_request(body)]
    assert asking == [3]  # once, in the fourth turn, and not again in the fifth
    summary_request = requests[3]
    assert "tools" not in summary_request
    assert max_tokens(summary_request) == SUMMARY_MAX_TOKENS
    transcript = summary_request["messages"][1]["content"]
    assert "ANSWER1" in transcript and "User: question 1" in transcript
    for body in requests[4:]:  # the fourth and fifth answers are asked with the summary
        system = body["messages"][0]["content"]
        assert SUMMARY in system
        sent = " ".join(str(m.get("content")) for m in body["messages"][1:])
        assert "ANSWER1" not in sent and "ANSWER3" in sent
    (note,) = [e for e in rig.log.of_type("notice") if e.code == "history_summarized"]
    assert note.turn_id == turns[3] and note.level == "info"
    assert note.args["summary"] == SUMMARY and note.args["count"] >= 2
    stored = rig.core.get_session(sid)["messages"]
    (kept,) = [m for m in stored if m["role"] == "system"]
    assert kept["content"] == SUMMARY and kept["stats"]["summary"] is True
    assert kept["stats"]["covered"] == note.args["count"]
    assert kept["turn_id"] == turns[3]


@pytest.mark.parametrize("failing", ["error", "cut"])
@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_a_failed_summary_falls_back_to_trimming_and_says_so(
    make_rig: Any, openai: bool, failing: str
) -> None:
    """A server error, or a summary whose stream ends before the server finished it (half a
    summary would stand for the whole chat), falls back to trimming."""
    rig: Rig = make_rig(openai=openai, sqlite=True, num_ctx=NUM_CTX, language="zh-CN")
    failed = error_turn(400, "model is overloaded") if failing == "error" else eof_turn(SUMMARY)
    rig.fake.script(
        *(text_turn(answer(n), chunk_chars=400) for n in (1, 2, 3)),
        failed,
        text_turn("第四个回答。"),
    )
    sid = rig.session()
    turns = chat_turns(rig, sid, 4)
    (note,) = [e for e in rig.log.of_type("notice") if e.code == "summary_failed"]
    assert note.turn_id == turns[3] and note.level == "warning"
    assert note.message.startswith("无法总结最早的消息")
    last = rig.fake.chat_requests[-1]
    assert "ANSWER1" not in " ".join(str(m.get("content")) for m in last["messages"])
    stored = rig.core.get_session(sid)["messages"]
    assert stored[-1]["content"] == "第四个回答。"
    assert not [m for m in stored if m["role"] == "system"]


def test_stop_during_the_summary_ends_the_turn_and_keeps_no_summary(make_rig: Any) -> None:
    rig: Rig = make_rig(sqlite=True, num_ctx=NUM_CTX)
    rig.fake.script(
        *(text_turn(answer(n), chunk_chars=400) for n in (1, 2, 3)),
        slow_turn("SUMMARY that never ends " * 50, delay=0.2),
    )
    sid = rig.session()
    chat_turns(rig, sid, 3)
    _, turn = rig.send("question 4", sid)
    eventually(lambda: len(rig.fake.chat_requests) >= 4, 15, "the summary request at the server")
    assert is_summary_request(rig.fake.chat_requests[3])
    rig.core.abort(sid)
    assert rig.finish(turn).stop_reason == "aborted"
    stored = rig.core.get_session(sid)["messages"]
    assert not [m for m in stored if m["role"] == "system"]
    assert not [e for e in rig.log.of_type("notice") if e.code == "history_summarized"]
