"""A busy model server as the user meets it: a notice while the loop waits, then the answer; the
Stop button ends the wait. Real Core, fake Ollama over HTTP."""

from __future__ import annotations

from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import busy_turn, text_turn


def test_a_busy_server_is_retried_after_a_notice(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(busy_turn(429, retry_after="0"), text_turn("Here it is."))
    sid, turn = rig.send("hi")
    notice = rig.log.wait_type("notice", code="server_busy_retry")
    assert notice.level == "warning" and notice.turn_id == turn
    assert notice.args == {"status": 429, "seconds": 0, "attempt": 1, "attempts": 2}
    assert notice.message == (
        "The model server is busy (HTTP 429); trying again in 0 s (retry 1 of 2)."
    )
    finished = rig.finish(turn)
    assert finished.type == "turn_finished" and finished.stop_reason == "done"
    stored = rig.core.get_session(sid)["messages"]
    assert [m["role"] for m in stored] == ["user", "assistant"]
    assert stored[1]["content"] == "Here it is."
    assert len(rig.fake.chat_requests) == 2


def test_still_busy_fails_the_turn_naming_the_status(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(*[busy_turn(503, "overloaded", retry_after="0")] * 3)
    _, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed"
    assert "busy (HTTP 503 Service Unavailable): overloaded" in failed.message
    assert "still busy after 2 retries" in failed.message
    assert len(rig.log.of_type("notice")) == 2


def test_stop_during_the_retry_wait_aborts_the_turn(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(busy_turn(503, retry_after="30"), text_turn("never sent"))
    sid, turn = rig.send("hi")
    rig.log.wait_type("notice", code="server_busy_retry")
    rig.core.abort(sid)
    finished = rig.finish(turn, timeout=10)  # the server asked for 30 s
    assert finished.type == "turn_finished" and finished.stop_reason == "aborted"
    assert len(rig.fake.chat_requests) == 1 and rig.fake.pending_turns == 1


def test_the_notice_is_written_in_the_turns_language(make_rig: Any) -> None:
    rig: Rig = make_rig(language="zh-CN")
    rig.fake.script(busy_turn(503, retry_after="1"), text_turn("好了"))
    _, turn = rig.send("你好")
    notice = rig.log.wait_type("notice", code="server_busy_retry")
    assert notice.message == "模型服务器繁忙（HTTP 503），1 秒后重试（第 1 次，共 2 次）。"
    assert rig.finish(turn).stop_reason == "done"


def test_the_announced_retry_wait_is_not_reported_as_a_silent_model(make_rig: Any) -> None:
    rig: Rig = make_rig(waiting_notice_s=0.3)
    rig.fake.script(busy_turn(503, retry_after="2"), text_turn("back"))
    _, turn = rig.send("hi")
    assert rig.finish(turn, timeout=15).stop_reason == "done"
    codes = [n.code for n in rig.log.of_type("notice")]
    assert codes == ["server_busy_retry"]
