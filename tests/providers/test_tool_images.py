"""Where a tool's images go on each wire, and the per-request bound (``providers/tool_images``).

The loop-level tests (tests/mcp/test_vision.py) drive this through the real MCP server and the
fake model servers; these pin the shapes and the hostile cases on the encoders themselves.
"""

from __future__ import annotations

import base64

from tray_app.base.messages import ChatMessage, ToolCall, image_bytes, image_note
from tray_app.providers.base import ChatRequest
from tray_app.providers.ollama import encode_request as ollama_request
from tray_app.providers.openai_wire import encode_request as openai_request
from tray_app.providers.tool_images import (
    MAX_REQUEST_IMAGE_BYTES,
    MAX_REQUEST_IMAGES,
    cap_images,
    wire_messages,
)
from tray_app.providers.wire_ids import wire_id

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 100).decode()
JPEG = base64.b64encode(b"\xff\xd8\xff" + "红点🔴\u202e".encode() * 10).decode()


def chat(*tool_images: list[str]) -> list[ChatMessage]:
    calls = [ToolCall(id=f"c{n}", name=f"srv__shot{n}") for n in range(len(tool_images))]
    return [
        ChatMessage(role="user", content="截图 \u202e"),
        ChatMessage(role="assistant", tool_calls=calls),
        *(
            ChatMessage(
                role="tool",
                content='{"success": true}',
                tool_name=call.name,
                tool_call_id=call.id,
                images=images,
            )
            for call, images in zip(calls, tool_images, strict=True)
        ),
    ]


def test_ollama_gets_the_tool_images_in_a_user_message_after_the_results() -> None:
    body = ollama_request(ChatRequest(model="m", messages=chat([PNG], [], [JPEG, PNG])))
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "tool", "user"]
    assert all("images" not in m for m in body["messages"][:5])
    last = body["messages"][-1]
    assert last["images"] == [PNG, JPEG, PNG]
    assert "srv__shot0 (1), srv__shot2 (2)" in last["content"]


def test_openai_gets_them_as_data_url_parts_and_the_tool_ids_still_pair() -> None:
    body = openai_request(ChatRequest(model="m", messages=chat([JPEG], [PNG])))
    sent = body["messages"]
    assert [m.get("tool_call_id") for m in sent[2:4]] == [wire_id("c0"), wire_id("c1")]
    assert all(isinstance(m["content"], str) for m in sent[2:4])
    parts = sent[4]["content"]
    assert sent[4]["role"] == "user" and parts[0]["type"] == "text"
    assert [p["image_url"]["url"] for p in parts[1:]] == [
        f"data:image/jpeg;base64,{JPEG}",
        f"data:image/png;base64,{PNG}",
    ]


def test_a_chat_without_tool_images_is_sent_as_it_was() -> None:
    messages = [ChatMessage(role="user", content="hi", images=[PNG])]
    assert wire_messages(messages) is messages


def test_a_request_carries_at_most_the_newest_images_and_notes_the_rest() -> None:
    rounds = [chat([PNG] * 4) for _ in range(3)]  # 12 images over three rounds
    messages = [m for one in rounds for m in one]
    capped = cap_images(messages)
    assert sum(len(m.images) for m in capped) == MAX_REQUEST_IMAGES
    assert [len(m.images) for m in capped if m.role == "tool"] == [0, 4, 4]
    dropped = next(m for m in capped if m.role == "tool")
    note = image_note(PNG, "left out: this request already has as many images as it may carry")
    assert dropped.content.count(note) == 4
    assert messages[2].images == [PNG] * 4  # the history's own messages are not changed


def test_huge_images_are_bounded_by_bytes_per_request() -> None:
    big = base64.b64encode(b"\x89PNG" + b"\0" * (MAX_REQUEST_IMAGE_BYTES // 2)).decode()
    capped = cap_images(chat([big, big, big]))
    kept = [i for m in capped for i in m.images]
    assert len(kept) == 1 and sum(image_bytes(i) for i in kept) <= MAX_REQUEST_IMAGE_BYTES
    assert capped[-1].content.count("[image: image/png, 10.0 MB, left out") == 2


def test_the_size_read_from_base64_is_exact() -> None:
    for raw in (b"", b"a", b"ab", b"abc", b"abcd", b"\0" * 12_359):
        assert image_bytes(base64.b64encode(raw).decode()) == len(raw)


def test_images_go_into_the_persons_next_message_not_a_second_user_message() -> None:
    """A turn that ended right after tool results (stopped, or at the round limit): the next
    request must not have two user messages in a row (strict chat templates refuse them)."""
    mine = JPEG
    messages = [
        *chat([PNG], [PNG]),
        ChatMessage(role="user", content="继续 \u202e🙂", images=[mine]),
    ]
    body = ollama_request(ChatRequest(model="m", messages=messages))
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user"]
    person = body["messages"][-1]
    assert person["images"] == [PNG, PNG, mine]  # the tools' first, in order, then the person's
    assert person["content"].endswith("\n\n继续 \u202e🙂")
    assert "srv__shot0 (1), srv__shot1 (1)" in person["content"]

    sent = openai_request(ChatRequest(model="m", messages=messages))["messages"]
    assert [m["role"] for m in sent] == roles
    parts = sent[-1]["content"]
    assert parts[0]["type"] == "text" and parts[0]["text"].endswith("继续 \u202e🙂")
    assert [p["image_url"]["url"][:22] for p in parts[1:]] == [
        "data:image/png;base64,",
        "data:image/png;base64,",
        "data:image/jpeg;base64",
    ]


def test_a_run_followed_by_an_answer_still_gets_its_own_user_message() -> None:
    messages = [*chat([PNG]), ChatMessage(role="assistant", content="done")]
    roles = [m.role for m in wire_messages(messages)]
    assert roles == ["user", "assistant", "tool", "user", "assistant"]
