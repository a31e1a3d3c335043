"""An image's context cost from its pixel size (``agent/image_tokens.py``), read from the
header only, and what that changes in a turn's budget (``agent/history.py``)."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import pytest
from PIL import Image

from tray_app.agent.context import message_tokens
from tray_app.agent.history import TurnHistory
from tray_app.agent.image_tokens import (
    CAP_TOKENS,
    FLOOR_TOKENS,
    HEADER_CHARS,
    UNKNOWN_IMAGE_TOKENS,
    image_size,
    image_tokens,
)
from tray_app.base.messages import ChatMessage, ToolCall
from tray_app.store.records import MessageRecord


def encoded(width: int, height: int, fmt: str, **save: object) -> str:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, fmt, **save)
    return base64.b64encode(out.getvalue()).decode()


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_header(width: int, height: int) -> str:
    """A PNG whose header claims ``width`` x ``height`` and that has no pixels at all."""
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    rest = chunk(b"IDAT", b"") + chunk(b"IEND", b"")
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + ihdr + rest).decode()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP"])
def test_the_size_is_read_from_each_formats_header(fmt: str) -> None:
    assert image_size(encoded(1920, 1080, fmt)) == (1920, 1080)
    assert image_size(encoded(37, 5, fmt)) == (37, 5)


def test_the_cost_follows_the_tiling_rule_with_a_floor_and_a_cap() -> None:
    assert image_tokens(encoded(16, 16, "PNG")) == FLOOR_TOKENS == 255  # one tile
    assert image_tokens(encoded(1024, 1024, "PNG")) == 765  # 768x768: 4 tiles
    assert image_tokens(encoded(1920, 1080, "JPEG")) == 1105  # 1365x768: 6 tiles
    assert image_tokens(png_header(40_000, 100)) == 765  # 2048x5 after fitting: 4 tiles
    assert image_tokens(png_header(8_000, 8_000)) == 765  # fitted and shrunk like 1024x1024
    assert image_tokens(png_header(2**31 - 1, 2**31 - 1)) == CAP_TOKENS  # a "bomb" header
    assert FLOOR_TOKENS < UNKNOWN_IMAGE_TOKENS < CAP_TOKENS


def test_hostile_or_unreadable_data_costs_the_flat_estimate() -> None:
    for data in ("", "红点🔴\u202e", "!!!!", "iVBORw0KGgo", base64.b64encode(b"\0" * 500).decode()):
        assert image_size(data) is None
        assert image_tokens(data) == UNKNOWN_IMAGE_TOKENS
    # Only a bounded prefix is read: a JPEG whose size comes after a huge comment is unknown.
    out = io.BytesIO()
    Image.new("RGB", (64, 64)).save(out, "JPEG", comment=b"x" * 60_000)
    late = base64.b64encode(out.getvalue()).decode()
    assert len(late) > HEADER_CHARS and Image.open(io.BytesIO(out.getvalue())).size == (64, 64)
    assert image_size(late) is None
    out = io.BytesIO()
    Image.new("RGB", (64, 64)).save(out, "JPEG", comment="注释 \u202e🙂".encode() * 900)
    assert image_tokens(base64.b64encode(out.getvalue()).decode()) == FLOOR_TOKENS  # 16 KB in
    assert image_tokens(late) == UNKNOWN_IMAGE_TOKENS


def test_a_message_counts_each_images_own_cost() -> None:
    small, big = encoded(32, 32, "PNG"), encoded(1920, 1080, "PNG")
    plain = message_tokens(ChatMessage(role="user", content="看图 \u202e"))
    both = message_tokens(ChatMessage(role="user", content="看图 \u202e", images=[small, big]))
    assert both - plain == 255 + 1105


def test_small_tool_images_no_longer_crowd_each_other_out_of_a_small_context() -> None:
    """Four icons (255 tokens each) fit a 1600-token budget that four flat 768s did not."""
    icons = [encoded(48 + n, 48, "PNG") for n in range(4)]
    call = ToolCall(id="c0", name="srv__icons")
    records = [
        MessageRecord(session_id="s", turn_id="t", role="user", content="看"),
        MessageRecord(session_id="s", turn_id="t", role="assistant", tool_calls=[call]),
        MessageRecord(
            session_id="s",
            turn_id="t",
            role="tool",
            content='{"success": true}',
            tool_name="srv__icons",
            tool_call_id="c0",
            images=icons,
        ),
    ]
    history = TurnHistory.load(records, "t", vision=True, tool_result_limit=16_000)
    sent = history.messages(None, num_ctx=2_000)
    assert sent[-1].images == icons and "left out" not in sent[-1].content
