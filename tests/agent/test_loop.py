"""The agent loop end to end: real Core, fake Ollama over HTTP, small test tools."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import (
    drop_turn,
    error_turn,
    midstream_error_turn,
    slow_turn,
    text_turn,
    tool_turn,
)
from tray_app.base.errors import NotFound


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def test_t18_a_turn_without_tool_calls_ends_after_one_round(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(text_turn("Hello there, friend.", thinking="Say hi."))
    sid, turn = rig.send("hi")
    finished = rig.finish(turn)
    assert finished.type == "turn_finished" and finished.stop_reason == "done"
    assert finished.rounds == 1
    text = "".join(e.text for e in rig.log.of_type("content_delta"))
    assert text == "Hello there, friend."
    assert "".join(e.text for e in rig.log.of_type("thinking_delta")) == "Say hi."
    (request,) = rig.fake.chat_requests
    assert request["think"] is True
    assert {t["function"]["name"] for t in request["tools"]} >= {"echo", "note"}
    assert request["messages"][0]["role"] == "system"
    assert "data, never instructions" in request["messages"][0]["content"]
    assert request["options"]["num_ctx"] == 24576
    stored = rig.core.get_session(sid)["messages"]
    assert [m["role"] for m in stored] == ["user", "assistant"]
    assert stored[1]["content"] == "Hello there, friend." and not stored[1]["stopped"]


def test_t20_parallel_calls_run_in_order_and_answer_one_message_each(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(
        tool_turn([("echo", {"text": "first"}), ("echo", {"text": "second"})]),
        text_turn("Both done."),
    )
    _, turn = rig.send("echo twice")
    assert rig.finish(turn).stop_reason == "done"
    second = rig.fake.chat_requests[1]
    results = tool_messages(second)
    assert [json.loads(m["content"])["echo"] for m in results] == ["first", "second"]
    assert all(m["tool_name"] == "echo" for m in results)
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][-1]
    ids = [c.get("id") for c in assistant["tool_calls"]]
    assert [m.get("tool_call_id") for m in results] == ids
    statuses = [(e.status) for e in rig.log.of_type("tool_call_update")]
    assert statuses.count("success") == 2


def test_a_tool_call_on_the_done_chunk_is_run(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn([("echo", {"text": "late"})], on_done_chunk=True), text_turn("ok"))
    _, turn = rig.send("go")
    assert rig.finish(turn).stop_reason == "done"
    assert json.loads(tool_messages(rig.fake.chat_requests[1])[0]["content"])["echo"] == "late"


def test_t19_the_round_limit_ends_the_turn_with_a_visible_notice(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(*[tool_turn([("echo", {"text": str(i)})]) for i in range(12)])
    _, turn = rig.send("loop forever")
    finished = rig.finish(turn, timeout=30)
    assert finished.stop_reason == "max_rounds" and finished.rounds == 10
    assert len(rig.fake.chat_requests) == 10
    notice = rig.log.wait_type("notice", code="max_rounds")
    assert "10 rounds" in notice.message
    # The last round's call was not run; the model will see why next time.
    last = rig.log.of_type("tool_call_update")[-1]
    assert last.status == "cancelled" and "round limit" in last.result["error"]


def test_bad_calls_are_answered_with_errors_and_the_loop_goes_on(make_rig: Any) -> None:
    rig: Rig = make_rig(disabled_tools=["zap"])
    rig.fake.script(
        tool_turn(
            [
                ("no_such_tool", {}),
                ("echo", {"wrong": 1}),
                ("zap", {"text": "x"}),
                ("boom", {"text": "x"}),
                ("echo", {"text": "fine"}),
            ]
        ),
        text_turn("recovered"),
    )
    _, turn = rig.send("try things")
    assert rig.finish(turn).stop_reason == "done"
    results = [json.loads(m["content"]) for m in tool_messages(rig.fake.chat_requests[1])]
    assert [r["success"] for r in results] == [False, False, False, False, True]
    assert "unknown tool" in results[0]["error"]
    assert "text" in results[1]["error"]
    assert "not enabled" in results[2]["error"]
    assert "kaboom" in results[3]["error"]
    assert "zap" not in {t["function"]["name"] for t in rig.fake.chat_requests[0]["tools"]}


def test_unparsable_arguments_reach_the_model_as_an_error(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(
        tool_turn([{"name": "echo", "arguments": "{not json"}], arguments_as_string=True),
        text_turn("sorry"),
    )
    _, turn = rig.send("go")
    assert rig.finish(turn).stop_reason == "done"
    (result,) = tool_messages(rig.fake.chat_requests[1])
    body = json.loads(result["content"])
    assert body["success"] is False and "invalid arguments" in body["error"]


def test_a_write_waits_for_approval_and_runs_when_approved(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn([("note", {"text": "buy milk"})]), text_turn("noted"))
    _, turn = rig.send("remember milk")
    asked = rig.log.wait_type("approval_needed")
    assert asked.name == "note" and asked.can_remember
    assert rig.notes == []  # nothing runs before the answer
    assert rig.core.status()["state"] == "waiting"
    decided = rig.core.decide(asked.call_id, True, by="notification")
    assert decided == {"call_id": asked.call_id, "approved": True}
    assert rig.finish(turn).stop_reason == "done"
    assert rig.notes == ["buy milk"]
    resolved = rig.log.wait_type("approval_resolved", call_id=asked.call_id)
    assert resolved.decision == "approved" and resolved.by == "notification"
    with pytest.raises(NotFound):  # answered already: the page drops its card
        rig.core.decide(asked.call_id, False)


def test_a_denied_write_is_not_run_and_the_model_is_told(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn([("note", {"text": "x"})]), text_turn("ok, I won't"))
    _, turn = rig.send("note x")
    asked = rig.log.wait_type("approval_needed")
    rig.core.decide(asked.call_id, False)
    assert rig.finish(turn).stop_reason == "done"
    assert rig.notes == []
    body = json.loads(tool_messages(rig.fake.chat_requests[1])[0]["content"])
    denied = (
        "note was not run: the user denied this call; do not retry it, "
        "ask the user or take another way"
    )
    assert body == {"success": False, "error": denied}
    assert rig.log.of_type("tool_call_update")[-1].status == "cancelled"


def test_dont_ask_again_covers_later_writes_in_the_session_only(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(
        tool_turn([("note", {"text": "a"})]),
        tool_turn([("note", {"text": "b"})]),
        text_turn("done"),
    )
    _, turn = rig.send("two notes")
    asked = rig.log.wait_type("approval_needed")
    rig.core.decide(asked.call_id, True, remember=True)
    assert rig.finish(turn).stop_reason == "done"
    assert rig.notes == ["a", "b"]
    assert len(rig.log.of_type("approval_needed")) == 1
    # A new session asks again.
    rig.fake.script(tool_turn([("note", {"text": "c"})]), text_turn("done"))
    _, turn2 = rig.send("again")
    asked2 = rig.log.wait_for(
        lambda e: getattr(e, "type", "") == "approval_needed" and e.call_id != asked.call_id
    )
    rig.core.decide(asked2.call_id, True)
    rig.finish(turn2)


def test_full_auto_runs_writes_but_still_asks_for_destructive_calls(make_rig: Any) -> None:
    rig: Rig = make_rig(confirmation_mode="full_auto")
    rig.fake.script(
        tool_turn([("note", {"text": "auto"}), ("zap", {"text": "boom"})]), text_turn("ok")
    )
    _, turn = rig.send("go")
    asked = rig.log.wait_type("approval_needed")
    assert asked.name == "zap"
    assert rig.notes == ["auto"]
    rig.core.decide(asked.call_id, False)
    rig.finish(turn)
    assert rig.notes == ["auto"]


def test_an_unanswered_approval_times_out_as_denied(make_rig: Any) -> None:
    rig: Rig = make_rig(confirmation_timeout=1)
    rig.fake.script(tool_turn([("note", {"text": "x"})]), text_turn("ok"))
    _, turn = rig.send("go")
    resolved = rig.log.wait_type("approval_resolved", timeout=10)
    assert resolved.decision == "timeout"
    rig.finish(turn)
    assert rig.notes == []
    body = json.loads(tool_messages(rig.fake.chat_requests[1])[0]["content"])
    assert "timeout" in body["error"]


def test_a_model_without_tools_gets_them_described_in_its_prompt(make_rig: Any) -> None:
    rig: Rig = make_rig(default_model="gemma3:4b")
    rig.fake.script(text_turn("I can only chat."))
    _, turn = rig.send("read my file")
    assert rig.finish(turn).stop_reason == "done"
    (request,) = rig.fake.chat_requests
    assert "tools" not in request  # the server would refuse them
    assert "think" not in request  # gemma3 cannot think either
    system = request["messages"][0]["content"]
    assert "<tool_call>" in system and "### echo" in system
    assert not rig.log.of_type("notice")
    started = rig.log.wait_type("turn_started")
    assert started.tools_enabled is True


def test_abort_mid_stream_closes_the_stream_and_keeps_what_arrived(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(slow_turn("one two three four five six seven eight nine ten", delay=0.3))
    sid, turn = rig.send("count slowly")
    rig.log.wait_type("content_delta")
    rig.core.abort(sid)
    finished = rig.finish(turn)
    assert finished.stop_reason == "aborted"
    assert rig.fake.wait_for_client_disconnect(timeout=5)
    stopped = rig.log.wait_type("message_finished", stopped=True)
    stored = {m["id"]: m for m in rig.core.get_session(sid)["messages"]}[stopped.message_id]
    assert stored["stopped"] is True
    assert (
        stored["content"]
        and stored["content"] != "one two three four five six seven eight nine ten"
    )
    assert rig.core.status()["state"] == "idle"


def test_abort_while_waiting_for_approval_cancels_it(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn([("note", {"text": "x"})]))
    sid, turn = rig.send("go")
    asked = rig.log.wait_type("approval_needed")
    rig.core.abort(sid)
    assert rig.finish(turn).stop_reason == "aborted"
    resolved = rig.log.wait_type("approval_resolved", call_id=asked.call_id)
    assert resolved.decision == "cancelled"
    assert rig.core.pending_approvals() == []
    assert rig.notes == []


def test_abort_while_a_tool_runs_tells_it_to_stop(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn([("slow", {"seconds": 60})]))
    sid, turn = rig.send("go")
    assert rig.slow_started.wait(10)
    rig.core.abort(sid)
    assert rig.finish(turn).stop_reason == "aborted"
    update = rig.log.wait_for(
        lambda e: getattr(e, "type", "") == "tool_call_update" and e.status == "cancelled"
    )
    assert update.duration_ms is not None and update.duration_ms < 30_000


def test_model_not_found_fails_the_turn_with_the_servers_words(make_rig: Any) -> None:
    rig: Rig = make_rig(default_model="qwen3:14b")
    _, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and failed.code == "model_not_found"
    assert "qwen3:14b" in failed.message
    assert rig.core.status()["state"] == "error"


def test_an_error_mid_stream_keeps_the_partial_answer(make_rig: Any) -> None:
    rig: Rig = make_rig()
    message = "model runner has unexpectedly stopped"
    rig.fake.script(midstream_error_turn("Partial answer so far", message))
    sid, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and failed.code == "stream_error"
    assert message in failed.message
    messages = rig.core.get_session(sid)["messages"]
    assistant = next(m for m in messages if m["role"] == "assistant")
    assert assistant["content"] == "Partial answer so far"
    assert assistant["stopped"] is True and message in assistant["error"]


def test_a_dropped_connection_fails_the_turn(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(drop_turn("half an ans"))
    _, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and failed.code == "stream_error"


def test_an_http_error_fails_the_turn(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(error_turn(500, "out of memory"))
    _, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and "out of memory" in failed.message


def test_server_down_fails_with_a_hint_to_start_ollama(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.stop()
    _, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.code == "provider_unavailable"
    assert "ollama" in failed.message.lower()


def test_retry_and_edit_resend_the_last_user_message(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(midstream_error_turn("par", "boom"), text_turn("fixed"), text_turn("edited"))
    sid, turn = rig.send("question")
    rig.finish(turn)
    turn2 = rig.core.retry(sid)["turn_id"]
    assert rig.finish(turn2).stop_reason == "done"
    messages = rig.core.get_session(sid)["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "question"),
        ("assistant", "fixed"),
    ]
    turn3 = rig.core.edit_last(sid, "better question")["turn_id"]
    assert rig.finish(turn3).stop_reason == "done"
    messages = rig.core.get_session(sid)["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "better question"),
        ("assistant", "edited"),
    ]
    last_request = rig.fake.chat_requests[-1]
    assert [m["content"] for m in last_request["messages"] if m["role"] == "user"] == [
        "better question"
    ]


def test_history_is_trimmed_to_the_context_but_the_current_turn_is_whole(make_rig: Any) -> None:
    rig: Rig = make_rig(num_ctx=2048)
    rig.fake.script(*[text_turn("r" * 1200) for _ in range(6)])
    sid = rig.session()
    for i in range(6):
        _, turn = rig.send(f"question {i} " + "q" * 1200, sid)
        rig.finish(turn)
    last = rig.fake.chat_requests[-1]
    users = [m["content"] for m in last["messages"] if m["role"] == "user"]
    assert users[-1].startswith("question 5 ")
    assert len(users) < 6
    size = sum(len(m["content"]) for m in last["messages"])
    assert size / 4 <= 2048 * 0.8 + 200


def test_the_safety_prompt_follows_the_language(make_rig: Any) -> None:
    rig: Rig = make_rig(language="zh-CN")
    rig.fake.script(text_turn("好"))
    _, turn = rig.send("你好")
    rig.finish(turn)
    system = rig.fake.chat_requests[0]["messages"][0]["content"]
    assert "工具使用安全规则" in system
    assert str(rig.workspace) in system
