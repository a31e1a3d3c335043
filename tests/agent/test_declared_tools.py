"""Tools as declarations, through a real Core and the fake Ollama server over HTTP: arguments
are validated once for every preview and the run, and a tool declared at run time (as the MCP
client will) runs, asks and answers like a built-in one."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from pydantic import BaseModel, model_validator

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn
from tray_app.tools.base import Risk, Tool, ToolContext
from tray_app.tools.external import external_tool

HOSTILE = "改 🌀 \u202eevil\u202c עברית"


def tool_answers(rig: Rig, request_index: int) -> list[dict[str, Any]]:
    messages = rig.fake.requests[request_index]["messages"]
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


class Counted:
    """How often the args model was validated, and which parsed objects the tool saw."""

    def __init__(self) -> None:
        self.validations = 0
        self.seen: list[int] = []
        self.lock = threading.Lock()


COUNTED = Counted()


class CountedArgs(BaseModel):
    text: str

    @model_validator(mode="before")
    @classmethod
    def _count(cls, data: Any) -> Any:
        with COUNTED.lock:
            COUNTED.validations += 1
        return data


def counted_tool() -> Tool:
    def preview(ctx: ToolContext, args: CountedArgs) -> dict[str, Any]:
        COUNTED.seen.append(id(args))
        # A binding makes the loop preview again just before the run (the approved target).
        return {"kind": "path", "path": f"/nowhere/{args.text}", "binding": {"text": args.text}}

    def run(ctx: ToolContext, args: CountedArgs) -> dict[str, Any]:
        COUNTED.seen.append(id(args))
        return {"success": True, "text": args.text}

    return Tool("counted", "Count validations.", CountedArgs, Risk.WRITE, run, preview)


def test_the_arguments_are_validated_once_for_every_preview_and_the_run(make_rig: Any) -> None:
    COUNTED.validations, COUNTED.seen = 0, []
    rig: Rig = make_rig(tools=[counted_tool()])
    rig.fake.script(tool_turn([("counted", {"text": HOSTILE})]), text_turn("done"))
    _, turn = rig.send("go")
    asked = rig.log.wait_type("approval_needed")
    assert asked.preview["path"] == f"/nowhere/{HOSTILE}"
    rig.core.decide(asked.call_id, True)
    assert rig.finish(turn).stop_reason == "done"
    assert tool_answers(rig, 1) == [{"success": True, "text": HOSTILE}]
    # The preview shown, the check after the approval, and the run: one parsed model.
    assert len(COUNTED.seen) == 3 and len(set(COUNTED.seen)) == 1
    assert COUNTED.validations == 1


def test_an_async_tool_declared_at_run_time_runs_on_the_core_loop(make_rig: Any) -> None:
    loops: list[bool] = []

    async def lookup(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        loops.append(asyncio.get_running_loop().is_running())
        await asyncio.sleep(0)
        return {"success": True, "found": arguments["query"][::-1]}

    tool = external_tool(
        name="docs__lookup",
        description="Look something up.",
        schema={
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
        call=lookup,
        read_only=True,
        origin="mcp:docs",
    )
    rig: Rig = make_rig(tools=[tool], confirmation_mode="all_writes")
    rig.fake.script(
        tool_turn([("docs__lookup", {"query": HOSTILE}), ("docs__lookup", {"q": "x"})]),
        text_turn("ok"),
    )
    _, turn = rig.send("look")
    assert rig.finish(turn).stop_reason == "done"
    first, second = tool_answers(rig, 1)
    assert first == {"success": True, "found": HOSTILE[::-1]}
    assert second["success"] is False and "query" in second["error"]
    assert loops == [True]  # awaited on a running loop, once; the bad call never reached it
    assert rig.log.of_type("approval_needed") == []  # read-only: never asks
    sent = {d["function"]["name"]: d["function"] for d in rig.fake.requests[0]["tools"]}
    assert sent["docs__lookup"]["parameters"]["required"] == ["query"]


def test_a_tool_without_annotations_asks_in_every_mode(make_rig: Any) -> None:
    calls: list[dict[str, Any]] = []

    def drop(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        calls.append(arguments)
        return {"success": True}

    tool = external_tool(
        name="db__drop", description="Drop a table.", schema={"type": "object"}, call=drop
    )
    assert tool.risk is Risk.DESTRUCTIVE
    rig: Rig = make_rig(tools=[tool], confirmation_mode="full_auto")
    rig.fake.script(tool_turn([("db__drop", {"table": "用户"})]), text_turn("ok"))
    _, turn = rig.send("drop it")
    asked = rig.log.wait_type("approval_needed")
    assert asked.risk == "destructive" and not asked.can_remember
    assert calls == []
    rig.core.decide(asked.call_id, False)
    assert rig.finish(turn).stop_reason == "done"
    assert calls == []
    assert "denied" in tool_answers(rig, 1)[0]["error"]
