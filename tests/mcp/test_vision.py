"""An MCP tool's images reach a vision model, through the agent loop over real HTTP.

The in-repo MCP server returns PNGs; the fake Ollama and the fake OpenAI-compatible server
record every request body. A vision model gets the images in a user message after the tool
results (the place both wires' models see them); any other model gets the result's text with a
note per image and never the image data. Hostile sizes stay bounded per result and per request.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.turns import error_turn, text_turn, tool_turn
from tests.mcp.conftest import ROOT, fake_entry
from tests.mcp.fake_server import PNG
from tests.support.waiting import eventually
from tray_app.mcp.results import MAX_IMAGES
from tray_app.providers.tool_images import MAX_REQUEST_IMAGES

VISION = "qwen2.5vl:7b"
HOSTILE = "红点 🔴 \u202eexe.png ‮ <img src=x>"


def ready(make_rig: Any, marks: Path, **settings: Any) -> Rig:
    servers = {"fake": fake_entry(marks, trust="trust_read_only")}
    rig: Rig = make_rig(default_registry=True, mcp_servers=servers, **settings)
    eventually(
        lambda: any(s["status"] == "ready" for s in rig.core.mcp_status()),
        30,
        "the MCP server to be ready",
    )
    return rig


def png(n: int, kilobytes: int = 0) -> str:
    """The base64 of the fake server's ``pictures`` image number ``n``."""
    return base64.b64encode(PNG + b"\0" * (kilobytes * 1024) + bytes([n % 256])).decode()


def ollama_images(request: dict[str, Any]) -> list[str]:
    return [i for m in request["messages"] for i in m.get("images", [])]


def openai_images(request: dict[str, Any]) -> list[str]:
    urls = []
    for message in request["messages"]:
        if isinstance(message["content"], list):
            urls += [p["image_url"]["url"] for p in message["content"] if p["type"] == "image_url"]
    return urls


def test_an_ollama_vision_model_sees_the_tools_images_after_the_results(
    make_rig: Any, marks: Path
) -> None:
    rig = ready(make_rig, marks, default_model=VISION)
    rig.fake.add_model(VISION, ["completion", "tools", "vision"])
    rig.fake.script(
        tool_turn(
            [("fake__pictures", {"count": 2, "caption": HOSTILE}), ("fake__echo", {"text": "e"})]
        ),
        text_turn("a red dot"),
    )
    sid, turn = rig.send("看看这张图")
    assert rig.finish(turn, 30).type == "turn_finished"
    messages = rig.fake.chat_requests[1]["messages"]
    roles = [m["role"] for m in messages]
    assert roles[-4:] == ["assistant", "tool", "tool", "user"]
    picture, echo, shown = messages[-3:]
    assert "images" not in picture and "images" not in echo  # not where the model ignores them
    assert shown["images"] == [png(0), png(1)]
    assert "fake__pictures (2)" in shown["content"]
    result = json.loads(picture["content"])
    assert [i["mime_type"] for i in result["images"]] == ["image/png", "image/png"]
    assert HOSTILE in result["content"]
    assert any("application/pdf" in note for note in result["images_left_out"])
    assert "iVBOR" not in picture["content"]  # the data travels once, as an image
    # The page gets each image once, on the card, not again with the tool message.
    snapshot = rig.core.get_session(sid)
    assert all(m["images"] == [] for m in snapshot["messages"] if m["role"] == "tool")
    (call,) = [c for c in snapshot["tool_calls"] if c["name"] == "fake__pictures"]
    assert [i["data"] for i in call["result"]["card_images"]] == [png(0), png(1)]


def test_a_model_without_vision_is_told_of_the_images_and_never_sent_them(
    make_rig: Any, marks: Path
) -> None:
    rig = ready(make_rig, marks)  # qwen3:8b: tools and thinking, no vision
    rig.fake.script(tool_turn([("fake__pictures", {"count": 1, "kilobytes": 12})]), text_turn("ok"))
    _, turn = rig.send("look")
    assert rig.finish(turn, 30).type == "turn_finished"
    body = json.dumps(rig.fake.chat_requests[1])
    assert "iVBOR" not in body and ollama_images(rig.fake.chat_requests[1]) == []
    tool = rig.fake.chat_requests[1]["messages"][-1]
    assert tool["role"] == "tool"
    assert tool["content"].endswith("\n[image: image/png, 12 KB, not shown to this model]")
    assert rig.log.of_type("notice") == []  # no "attached images" notice: the user sent none


def test_an_openai_compatible_model_sees_images_only_when_named_a_vision_model(
    make_rig: Any, marks: Path
) -> None:
    named = ready(make_rig, marks, openai=True, vision_models=["gpt-4o-mini"])
    named.fake.script(
        tool_turn([("fake__pictures", {"count": 1, "caption": HOSTILE})]), text_turn("ok")
    )
    _, turn = named.send("look")
    assert named.finish(turn, 30).type == "turn_finished"
    messages = named.fake.chat_requests[1]["messages"]
    assert [m["role"] for m in messages[-3:]] == ["assistant", "tool", "user"]
    assert isinstance(messages[-2]["content"], str)  # a tool message takes only text
    assert messages[-2]["tool_call_id"] == messages[-3]["tool_calls"][0]["id"]
    assert openai_images(named.fake.chat_requests[1]) == [f"data:image/png;base64,{png(0)}"]

    unnamed = ready(make_rig, marks, openai=True)
    unnamed.fake.script(tool_turn([("fake__pictures", {"count": 1})]), text_turn("ok"))
    _, turn = unnamed.send("look")
    assert unnamed.finish(turn, 30).type == "turn_finished"
    request = unnamed.fake.chat_requests[1]
    assert openai_images(request) == [] and "iVBOR" not in json.dumps(request)
    assert "[image: image/png, 71 B, not shown to this model]" in request["messages"][-1]["content"]


def test_hostile_sizes_are_bounded_per_result_and_per_request(make_rig: Any, marks: Path) -> None:
    rig = ready(make_rig, marks, default_model=VISION, sqlite=True)
    rig.fake.add_model(VISION, ["completion", "tools", "vision"])
    rig.fake.script(
        tool_turn([("fake__pictures", {"count": 1, "kilobytes": 5 * 1024})]),  # 5 MB: refused
        tool_turn([("fake__pictures", {"count": 9})]),  # more than a result may carry
        tool_turn([("fake__pictures", {"count": 9})]),
        text_turn("seen"),
    )
    sid, turn = rig.send("many")
    assert rig.finish(turn, 60).type == "turn_finished"
    first = rig.fake.chat_requests[1]
    assert ollama_images(first) == []
    left_out = json.loads(first["messages"][-1]["content"])["images_left_out"]
    assert any("over the limit" in note for note in left_out)
    assert ollama_images(rig.fake.chat_requests[2]) == [png(n) for n in range(MAX_IMAGES)]
    last = rig.fake.chat_requests[3]
    sent = ollama_images(last)
    assert len(sent) == MAX_REQUEST_IMAGES  # 2 x 4 from the results, newest kept
    notes = [m for m in last["messages"] if "left out: this request already has" in m["content"]]
    assert notes == []  # exactly at the limit: nothing noted

    # A reloaded chat still has them: the next turn sends the newest again, capped.
    rig.fake.script(tool_turn([("fake__pictures", {"count": 2})]), text_turn("again"))
    _, turn = rig.send("more", sid)
    assert rig.finish(turn, 60).type == "turn_finished"
    request = rig.fake.chat_requests[5]
    assert len(ollama_images(request)) == MAX_REQUEST_IMAGES
    assert ollama_images(request)[-2:] == [png(0), png(1)]
    noted = "\n".join(m["content"] for m in request["messages"])
    assert noted.count("left out: this request already has") == 2


def test_the_real_cli_shows_a_vision_model_the_tools_image(
    fake_ollama: Any, metona_home: Path, tmp_path: Path
) -> None:
    """``metona-tray chat`` as a subprocess: the user's path outside the popup."""
    marks = tmp_path / "marks"
    marks.mkdir()
    config = metona_home / "config" / "settings.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    entry = fake_entry(marks, trust="trust_read_only")
    config.write_text(json.dumps({"mcp_servers": {"fake": entry}}), encoding="utf-8")
    fake_ollama.add_model(VISION, ["completion", "tools", "vision"])
    env = dict(os.environ, METONA_HOME=str(metona_home), NO_COLOR="1", PYTHONPATH=str(ROOT))
    env.pop("DISPLAY", None)
    for model in (VISION, "qwen3:8b"):
        fake_ollama.script(
            tool_turn([("fake__pictures", {"count": 1, "caption": HOSTILE})]), text_turn("红点")
        )
        command = [sys.executable, "-m", "tray_app", "chat", "--model", model]
        done = subprocess.run(
            [*command, "--endpoint", fake_ollama.url, "看看图"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        assert "红点" in done.stdout.decode("utf-8")
    seen, blind = fake_ollama.chat_requests[1], fake_ollama.chat_requests[3]
    assert ollama_images(seen) == [png(0)] and seen["messages"][-1]["role"] == "user"
    assert ollama_images(blind) == [] and "iVBOR" not in json.dumps(blind)
    assert blind["messages"][-1]["content"].endswith(
        "[image: image/png, 71 B, not shown to this model]"
    )


def test_a_turn_ended_after_tool_results_sends_one_user_message_next_time(
    make_rig: Any, marks: Path
) -> None:
    """The model's answer after the tool results fails (a stop does the same), so the turn ends
    right after the results; the next turn's request carries the images in the person's own
    message, so roles still alternate (strict chat templates refuse two user messages)."""
    for openai in (False, True):
        model = "gpt-4o-mini" if openai else VISION
        rig = ready(make_rig, marks, openai=openai, default_model=model, vision_models=[model])
        if not openai:
            rig.fake.add_model(VISION, ["completion", "tools", "vision"])
        rig.fake.script(
            tool_turn([("fake__pictures", {"count": 2, "caption": HOSTILE})]),
            error_turn(500, "out of memory"),
        )
        sid, turn = rig.send("截图")
        assert rig.finish(turn, 30).type == "turn_failed"
        rig.fake.script(text_turn("两个红点"))
        _, turn = rig.send("再看 \u202e🙂", sid)
        assert rig.finish(turn, 30).type == "turn_finished"
        messages = rig.fake.chat_requests[-1]["messages"]
        roles = [m["role"] for m in messages]
        assert roles[-3:] == ["assistant", "tool", "user"], messages
        assert all(a != b or a == "tool" for a, b in pairwise(roles))
        person = messages[-1]
        if openai:
            text = person["content"][0]["text"]
            assert openai_images(rig.fake.chat_requests[-1]) == [
                f"data:image/png;base64,{png(n)}" for n in range(2)
            ]
        else:
            text = person["content"]
            assert person.get("images") == [png(0), png(1)], messages
        assert text.endswith("再看 \u202e🙂") and "fake__pictures (2)" in text


def test_structured_content_says_truly_where_its_images_went(make_rig: Any, marks: Path) -> None:
    """A server that mirrors its image in structuredContent: the model is told which of the
    result's images it is (shown to this vision model and on the card); an image found only
    there is said to be left out, since nothing shows it."""
    rig = ready(make_rig, marks, default_model=VISION)
    rig.fake.add_model(VISION, ["completion", "tools", "vision"])
    rig.fake.script(tool_turn([("fake__mirrored", {})]), text_turn("ok"))
    _, turn = rig.send("截图")
    assert rig.finish(turn, 30).type == "turn_finished"
    request = rig.fake.chat_requests[1]
    tool = next(m for m in request["messages"] if m["role"] == "tool")
    structured = json.loads(tool["content"])["structured"]
    assert structured["shot"]["note"].endswith("the same as image 1 of this result's images")
    assert "left out" in structured["extra"][0]["note"]
    assert structured["title"] == "截图 \u202e🙂"
    assert "shown on the card" not in tool["content"] and "iVBOR" not in tool["content"]
    assert ollama_images(request) == [base64.b64encode(PNG).decode()]  # shown once, as an image


def test_a_tools_images_are_stored_once_and_a_reloaded_chat_still_shows_them(
    make_rig: Any, marks: Path
) -> None:
    """The real SQLite store: the image data is in the call's result only (the tool message
    keeps references); the next turn, the card, the export and a re-imported copy still
    have them."""
    rig = ready(make_rig, marks, default_model=VISION, sqlite=True)
    rig.fake.add_model(VISION, ["completion", "tools", "vision"])
    rig.fake.script(
        tool_turn([("fake__pictures", {"count": 2, "kilobytes": 30, "caption": HOSTILE})]),
        text_turn("两个红点"),
    )
    sid, turn = rig.send("截图 \u202e")
    assert rig.finish(turn, 30).type == "turn_finished"
    shots = [png(0, 30), png(1, 30)]

    exported = rig.core.export_session(sid, fmt="json")["data"]
    text = json.dumps(exported)
    assert all(text.count(shot) == 1 for shot in shots)  # once: in the call's result
    (tool,) = [m for m in exported["messages"] if m["role"] == "tool"]
    assert len(tool["images"]) == 2 and not any(shot in tool["images"] for shot in shots)
    assert "card-image:" not in rig.core.export_session(sid)["data"]  # no reference shows
    snapshot = rig.core.get_session(sid)
    (call,) = snapshot["tool_calls"]
    assert [i["data"] for i in call["result"]["card_images"]] == shots

    rig.fake.script(text_turn("还在"))
    _, turn = rig.send("再看", sid)
    assert rig.finish(turn, 30).type == "turn_finished"
    assert ollama_images(rig.fake.chat_requests[-1]) == shots

    # Imported again into the same store: new message ids, the references still hold.
    copy = rig.core._chats.import_json(exported)  # type: ignore[attr-defined]
    rig.fake.script(text_turn("副本"))
    _, turn = rig.send("副本里呢", copy.id)
    assert rig.finish(turn, 30).type == "turn_finished"
    assert ollama_images(rig.fake.chat_requests[-1]) == shots
