"""A turn's history and images: a tool's images for a vision model, notes for any other, and
never more held than a request can carry (``agent/history.py``)."""

from __future__ import annotations

import base64

from tray_app.agent.history import TurnHistory
from tray_app.base.messages import ToolCall
from tray_app.providers.tool_images import MAX_REQUEST_IMAGES
from tray_app.store.records import MessageRecord


def png(n: int, size: int = 100) -> str:
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * size + n.to_bytes(2, "big")).decode()


def round_of(turn: str, n: int, images: list[str]) -> list[MessageRecord]:
    call = ToolCall(id=f"c{n}", name="srv__shot")
    return [
        MessageRecord(session_id="s", turn_id=turn, role="assistant", tool_calls=[call]),
        MessageRecord(
            session_id="s",
            turn_id=turn,
            role="tool",
            content='{"success": true, "content": "截图 🖼 \u202e"}',
            tool_name="srv__shot",
            tool_call_id=call.id,
            images=images,
        ),
    ]


def user(turn: str, images: list[str] | None = None) -> MessageRecord:
    return MessageRecord(
        session_id="s", turn_id=turn, role="user", content="看", images=images or []
    )


def test_a_model_without_vision_gets_a_note_per_tool_image_and_no_data() -> None:
    records = [user("t"), *round_of("t", 0, [png(0, 12 * 1024), png(1)])]
    history = TurnHistory.load(records, "t", vision=False, tool_result_limit=16_000)
    sent = history.messages(None, num_ctx=8192)
    assert all(m.images == [] for m in sent)
    tool = sent[-1]
    assert tool.content.endswith(
        "\n[image: image/png, 12 KB, not shown to this model]"
        "\n[image: image/png, 110 B, not shown to this model]"
    )
    assert not history.has_images  # the user attached none: no "attached images" notice


def test_a_vision_model_keeps_them_and_the_user_attachment_is_told_apart() -> None:
    history = TurnHistory.load([user("t", [png(9)])], "t", vision=True, tool_result_limit=16_000)
    assert history.has_images
    for record in round_of("t", 0, [png(0)]):
        history.add(record)
    sent = history.messages(None, num_ctx=8192)
    assert [m.images for m in sent] == [[png(9)], [], [png(0)]]


def test_only_the_newest_images_are_held_earlier_and_in_this_turn() -> None:
    earlier = [user("old")] + [r for n in range(5) for r in round_of("old", n, [png(n), png(n)])]
    history = TurnHistory.load([*earlier, user("t")], "t", vision=True, tool_result_limit=16_000)
    for n in range(10, 16):
        for record in round_of("t", n, [png(n), png(n)]):
            history.add(record)
    sent = history.messages(None, num_ctx=1_000_000)
    held = [i for m in sent for i in m.images]
    # at most a request's worth from the earlier turns and from this one, newest kept
    assert held[-MAX_REQUEST_IMAGES:] == [png(n) for n in range(12, 16) for _ in range(2)]
    assert held[:-MAX_REQUEST_IMAGES] == [png(n) for n in range(1, 5) for _ in range(2)]
    notes = "\n".join(m.content for m in sent)
    assert notes.count("left out: this request already has as many images") == 6


def test_a_stubbed_old_result_loses_its_images_with_its_text() -> None:
    history = TurnHistory.load([user("t")], "t", vision=True, tool_result_limit=16_000)
    big = '{"success": true, "content": "' + "长" * 3_000 + '"}'
    for n in range(3):
        for record in round_of("t", n, [png(n)]):
            record.content = big if record.role == "tool" else record.content
            history.add(record)
    sent = history.messages(None, num_ctx=9_000)  # room for about two results
    tools = [m for m in sent if m.role == "tool"]
    assert tools[0].content.startswith("[an earlier tool result") and tools[0].images == []
    assert tools[-1].images == [png(2)]


def test_images_that_would_overflow_a_small_context_become_notes_oldest_first() -> None:
    history = TurnHistory.load([user("t")], "t", vision=True, tool_result_limit=16_000)
    for record in round_of("t", 0, [png(n) for n in range(4)]):  # 4 x 768 tokens
        history.add(record)
    sent = history.messages(None, num_ctx=2_000)  # a budget of 1600 tokens: two images fit
    tool = sent[-1]
    assert tool.images == [png(2), png(3)]
    assert tool.content.count("left out to fit the context]") == 2
    assert history.messages(None, num_ctx=2_000) == sent  # the same choice in every round
    assert history.messages(None, num_ctx=100_000)[-1].images == [png(n) for n in range(4)]
