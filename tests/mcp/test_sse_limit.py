"""A tool answer over the SSE transport's 1 MB event cap (the SDK's ``sse_client`` has no knob
for it) fails the call with an error that names the limit, not a bare "connection closed"; the
server is ready again afterwards and a smaller answer gets through."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.http_serve import Served, serve
from tests.support.waiting import eventually

__all__ = ["serve"]  # the fixture, imported
HOSTILE = "图片 🖼️ \u202egnp.exe <b>x</b>"


def test_an_answer_over_the_sse_cap_is_a_clear_tool_error_and_the_server_recovers(
    make_rig: Any, serve: Callable[..., Served]
) -> None:
    served = serve("sse")
    entry = {"url": served.url, "type": "sse", "trust": "trust_read_only", "timeout_s": 60}
    rig: Rig = make_rig(default_registry=True, mcp_servers={"远程 图": entry})

    def ready() -> bool:
        return any(s["status"] == "ready" for s in rig.core.mcp_status())

    eventually(ready, 60, "the SSE server ready")
    rig.fake.script(text_turn("looking"))
    _, turn = rig.send("which tools?")
    rig.finish(turn)
    offered = [t["function"]["name"] for t in rig.fake.chat_requests[0]["tools"]]
    pictures = next(name for name in offered if name.endswith("__pictures"))

    big = {"count": 1, "kilobytes": 1200, "caption": HOSTILE}  # 1.2 MB of PNG, base64: ~1.6 MB
    rig.fake.script(tool_turn([(pictures, big)]), text_turn("too big"))
    sid, turn = rig.send("show me")
    rig.finish(turn, 90)
    answer = json.loads(rig.fake.chat_requests[-1]["messages"][-1]["content"])
    assert answer["success"] is False, answer
    assert "more than 1 MB" in answer["error"] and "SSE" in answer["error"], answer
    assert "Streamable HTTP" in answer["error"]
    (call,) = [c for c in rig.core.get_session(sid)["tool_calls"] if c["name"] == pictures]
    assert call["result"]["code"] == "mcp_sse_too_large"  # the card says it in zh-CN too
    assert call["result"]["params"] == {"server": "远程 图", "tool": "pictures", "megabytes": 1}

    eventually(ready, 90, "the SSE server ready again")
    small = {"count": 1, "kilobytes": 100, "caption": HOSTILE}
    rig.fake.script(tool_turn([(pictures, small)]), text_turn("seen"))
    _, turn = rig.send("a smaller one")
    rig.finish(turn, 90)
    shown = rig.fake.chat_requests[-1]["messages"][-1]["content"]
    answer, _images = json.JSONDecoder().raw_decode(shown)  # the images' notes follow it
    assert answer["success"] is True and HOSTILE in answer["content"], shown
