"""MCP tools through the agent loop: a fake model over real HTTP calls the in-repo MCP server's
tools; approvals, cards, results for the model and cancellation work like the built-in tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.conftest import fake_entry
from tests.support.waiting import eventually


def ready_rig(make_rig: Any, marks: Path, **server: Any) -> Rig:
    rig: Rig = make_rig(default_registry=True, mcp_servers={"fake": fake_entry(marks, **server)})

    def ready() -> bool:
        return any(s["status"] == "ready" for s in rig.core.mcp_status())

    eventually(ready, 30, "the MCP server to be ready")
    return rig


def tool_message(rig: Rig, request: int = 1) -> dict[str, Any]:
    message = rig.fake.chat_requests[request]["messages"][-1]
    assert message["role"] == "tool"
    return dict(json.loads(message["content"]))


def test_the_model_sees_the_servers_tools(make_rig: Any, marks: Path) -> None:
    rig = ready_rig(make_rig, marks)
    rig.fake.script(text_turn("hi"))
    _, turn = rig.send("hello")
    rig.finish(turn)
    tools = {t["function"]["name"]: t["function"] for t in rig.fake.chat_requests[0]["tools"]}
    assert "read_file" in tools
    assert tools["fake__echo"]["description"].startswith("[fake] ")
    assert tools["fake__echo"]["parameters"]["required"] == ["text"]
    status = {s["name"]: s for s in rig.core.mcp_status()}["fake"]
    risks = {t["name"]: t["risk"] for t in status["tools"]}
    assert risks["wipe"] == "destructive"
    assert risks["echo"] == risks["add_note"] == "write"


def test_a_destructive_call_asks_shows_the_arguments_and_runs_after_approval(
    make_rig: Any, marks: Path
) -> None:
    rig = ready_rig(make_rig, marks, trust="trust_read_only")
    hostile = "日本 \u202eexe.txt <b>x</b> 🌍"
    rig.fake.script(tool_turn([("fake__wipe", {"target": hostile})]), text_turn("done"))
    _, turn = rig.send("wipe it")
    asked = rig.log.wait_type("approval_needed")
    assert asked.name == "fake__wipe" and asked.risk == "destructive"
    assert asked.can_remember is False
    preview = asked.preview
    assert (preview["kind"], preview["server"], preview["mcp_tool"]) == ("mcp", "fake", "wipe")
    assert json.loads(preview["arguments_text"]) == {"target": hostile}
    assert not (marks / "wiped").exists()
    rig.core.decide(asked.call_id, True)
    rig.finish(turn)
    assert (marks / "wiped").read_text(encoding="utf-8") == hostile
    result = tool_message(rig)
    assert result["success"] is True and result["content"] == f"wiped {hostile}"


def test_a_denied_call_never_reaches_the_server(make_rig: Any, marks: Path) -> None:
    rig = ready_rig(make_rig, marks)
    rig.fake.script(tool_turn([("fake__add_note", {"text": "n"})]), text_turn("ok"))
    _, turn = rig.send("note")
    asked = rig.log.wait_type("approval_needed")
    rig.core.decide(asked.call_id, False)
    rig.finish(turn)
    assert not (marks / "note").exists()
    assert "denied" in tool_message(rig)["error"]


def test_read_only_tools_ask_unless_the_server_is_trusted(make_rig: Any, marks: Path) -> None:
    rig = ready_rig(make_rig, marks)
    rig.fake.script(tool_turn([("fake__echo", {"text": "a"})]), text_turn("ok"))
    _, turn = rig.send("echo")
    asked = rig.log.wait_type("approval_needed")
    assert asked.can_remember is True  # asks like a write: "don't ask again" is offered
    rig.core.decide(asked.call_id, True)
    rig.finish(turn)
    assert tool_message(rig)["content"] == "echo: a"

    trusted = ready_rig(make_rig, marks, trust="trust_read_only")
    trusted.fake.script(tool_turn([("fake__echo", {"text": "b"})]), text_turn("ok"))
    _, turn = trusted.send("echo")
    trusted.finish(turn)
    assert trusted.log.of_type("approval_needed") == []
    assert tool_message(trusted)["content"] == "echo: b"


def test_errors_images_and_structured_content_reach_the_model_as_they_should(
    make_rig: Any, marks: Path
) -> None:
    rig = ready_rig(make_rig, marks, trust="trust_read_only")
    rig.fake.script(
        tool_turn([("fake__fail", {"reason": "没有 city"}), ("fake__picture", {})]),
        tool_turn([("fake__weather", {"city": "北京"})]),
        text_turn("done"),
    )
    _, turn = rig.send("go")
    rig.finish(turn)
    messages = rig.fake.chat_requests[1]["messages"]
    failed = json.loads(messages[-2]["content"])
    # qwen3:8b cannot see images: the result's JSON, then a note per image (tests/mcp/test_vision).
    text, note = messages[-1]["content"].rsplit("\n", 1)
    picture = json.loads(text)
    assert note == "[image: image/png, 70 B, not shown to this model]"
    assert failed["success"] is False and "没有 city" in failed["error"]
    assert picture["success"] is True and picture["images"][0]["mime_type"] == "image/png"
    assert "card_images" not in picture and "iVBOR" not in messages[-1]["content"]
    card = rig.log.wait_for(
        lambda e: (
            getattr(e, "type", "") == "tool_call_update"
            and e.status == "success"
            and "card_images" in (e.result or {})
        )
    )
    assert card.result["card_images"][0]["data"].startswith("iVBOR")
    assert tool_message(rig, 2)["structured"] == {"city": "北京", "celsius": 21.5}


def test_stopping_the_turn_cancels_the_call_on_the_server(make_rig: Any, marks: Path) -> None:
    rig = ready_rig(make_rig, marks, trust="trust_read_only")
    rig.fake.script(tool_turn([("fake__slow", {"steps": 2})]), text_turn("never"))
    sid, turn = rig.send("slow")
    eventually(lambda: (marks / "step-1").exists(), message="the slow tool to start")
    rig.core.abort(sid)
    rig.finish(turn)
    eventually(lambda: (marks / "cancelled").exists(), message="the server to see the cancellation")
    update = rig.log.wait_for(
        lambda e: getattr(e, "type", "") == "tool_call_update" and e.status == "cancelled"
    )
    assert "cancelled" in update.result["error"]


def test_a_server_that_is_not_ready_does_not_hold_up_a_chat(make_rig: Any, tmp_path: Path) -> None:
    hang = tmp_path / "hang.py"
    hang.write_text("import time\nwhile True: time.sleep(1)\n")
    rig: Rig = make_rig(
        default_registry=True,
        mcp_servers={"hangs": {"command": "python3", "args": [str(hang)]}, "bad": {"url": "x"}},
    )
    rig.fake.script(text_turn("answered"))
    _, turn = rig.send("hi")
    assert rig.finish(turn).type == "turn_finished"
    names = [t["function"]["name"] for t in rig.fake.chat_requests[0]["tools"]]
    assert not [n for n in names if n.startswith("hangs__")]
    status = {s["name"]: s for s in rig.core.mcp_status()}
    assert status["hangs"]["status"] == "starting"
    assert status["bad"]["status"] == "invalid" and "http" in status["bad"]["error"]


def test_progress_reaches_the_card(make_rig: Any, marks: Path) -> None:
    rig = ready_rig(make_rig, marks, trust="trust_read_only")
    (marks / "go").write_text("")
    rig.fake.script(tool_turn([("fake__slow", {"steps": 3})]), text_turn("done"))
    _, turn = rig.send("slow")
    rig.finish(turn)
    steps = [
        e.progress
        for e in rig.log.of_type("tool_call_update")
        if e.status == "running" and e.progress
    ]
    assert steps[0] == {"done": 1, "total": 3, "message": "step 1"}
    assert steps[-1] == {"done": 3, "total": 3, "message": "step 3"}
    assert tool_message(rig)["content"] == "done after 3 steps"


def test_a_server_that_dies_mid_call_says_so_on_the_card(make_rig: Any, marks: Path) -> None:
    rig = ready_rig(make_rig, marks, trust="trust_read_only")
    rig.fake.script(tool_turn([("fake__crash", {})]), text_turn("oh"))
    _, turn = rig.send("crash")
    rig.finish(turn, 30)
    error = tool_message(rig)["error"]
    assert "stopped while running crash" in error and "started again" in error
    eventually(lambda: len(list(marks.glob("started-*"))) == 2, 30, "the restart")
