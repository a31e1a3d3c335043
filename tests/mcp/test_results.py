"""An MCP result for the model and the card: bounded, images kept off the model's message."""

from __future__ import annotations

import base64
import json

from tray_app.mcp.results import MAX_TEXT, convert, model_view

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 20).decode()


def test_text_structured_resources_links_and_images() -> None:
    raw = {
        "content": [
            {"type": "text", "text": "héllo 你好 \u202e"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            {"type": "image", "data": PNG, "mimeType": "image/svg+xml"},
            {"type": "audio", "data": PNG, "mimeType": "audio/wav"},
            {
                "type": "resource",
                "resource": {"uri": "file:///a", "text": "内容", "mimeType": "text/plain"},
            },
            {"type": "resource", "resource": {"uri": "file:///b", "blob": PNG}},
            {"type": "resource_link", "uri": "file:///c", "name": "c"},
            {"type": "mystery"},
            "not an object",
        ],
        "structuredContent": {"k": [1, 2]},
        "isError": False,
    }
    result = convert(raw, server="s", tool="t")
    assert result["success"] is True
    assert result["content"] == "héllo 你好 \u202e"
    assert result["structured"] == {"k": [1, 2]}
    assert result["resources"][0] == {"uri": "file:///a", "mime_type": "text/plain", "text": "内容"}
    assert "28 bytes" in result["resources"][1]["blob"]
    assert result["resource_links"] == [{"uri": "file:///c", "name": "c"}]
    assert result["images"] == [{"mime_type": "image/png", "bytes": 28}]
    assert result["card_images"][0]["data"] == PNG
    assert len(result["images_left_out"]) == 3
    seen = json.dumps(model_view(result))
    assert PNG not in seen and "card_images" not in seen


def test_is_error_is_a_failure_with_the_servers_words() -> None:
    result = convert(
        {"content": [{"type": "text", "text": "no such city"}], "isError": True},
        server="s",
        tool="t",
    )
    assert result == {
        "success": False,
        "error": "no such city",
        "server": "s",
        # for the card: whose words they are, in the user's language (the model gets none)
        "code": "mcp_reported_error",
        "params": {"server": "s", "tool": "t", "detail": "no such city"},
    }
    empty = convert({"content": [], "isError": True}, server="s", tool="t")
    assert "reported an error" in empty["error"]


def test_huge_results_are_bounded() -> None:
    many = [{"type": "text", "text": "x" * 10_000} for _ in range(500)]
    result = convert(
        {"content": many, "structuredContent": {"big": "y" * 200_000}}, server="s", tool="t"
    )
    assert len(result["content"]) < MAX_TEXT + 200
    assert "more characters from the server" in result["content"]
    assert "structured" not in result and "structured_note" in result
    assert result["content_left_out"] == 300
    images = [{"type": "image", "data": PNG, "mimeType": "image/png"}] * 10
    assert len(convert({"content": images}, server="s", tool="t")["card_images"]) == 4


def test_structured_media_notes_say_where_the_image_went() -> None:
    other = base64.b64encode(b"\x89PNG\r\n\x1a\n" + "红".encode() * 9).decode()
    raw = {
        "content": [{"type": "image", "data": PNG, "mimeType": "image/png"}],
        "structuredContent": {
            "mirror": {"type": "image", "data": PNG, "mimeType": "image/png"},
            "deep": [[{"type": "image", "data": other, "mimeType": "\u202eimage/png" * 50}]],
            "sound": {"type": "audio", "data": PNG, "mimeType": "audio/wav"},
        },
    }
    structured = convert(raw, server="s", tool="t")["structured"]
    assert structured["mirror"] == {
        "type": "image",
        "note": "image/png, 28 bytes: the same as image 1 of this result's images",
    }
    deep = structured["deep"][0][0]["note"]
    assert deep.endswith("35 bytes, left out: not among this result's images, not shown")
    assert len(deep) < 200  # a hostile mime type is cut
    assert structured["sound"]["note"].startswith("audio/wav, 28 bytes, left out")
    assert "shown on the card" not in json.dumps(structured)
