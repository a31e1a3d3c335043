"""Line splitting on its own: each byte is looked at once, and a line has a maximum length."""

from __future__ import annotations

import pytest

from tray_app.base.errors import LineTooLong, StreamError
from tray_app.providers._lines import MAX_LINE_BYTES, LineSplitter, size_text

HOSTILE = ["你好，世界", "🌍🚀👩‍👩‍👧", "\u202eevil\u202c \u2067rtl\u2069", "nel\u0085ls\u2028", ""]


def feed_all(splitter: LineSplitter, pieces: list[bytes]) -> list[str]:
    return [line for piece in pieces for line in splitter.feed(piece)]


def test_hostile_lines_cut_at_every_byte_come_back_whole() -> None:
    body = "\r\n".join(HOSTILE).encode() + b"\n"
    splitter = LineSplitter()
    lines = feed_all(splitter, [body[i : i + 1] for i in range(len(body))])
    assert lines == HOSTILE
    assert splitter.flush() == []


def test_a_line_may_be_exactly_the_limit_but_not_one_byte_more() -> None:
    splitter = LineSplitter(max_line=10)
    assert feed_all(splitter, [b"12345", b"67890\n"]) == ["1234567890"]
    assert feed_all(splitter, [b"12345", b"67890"]) == []
    with pytest.raises(LineTooLong) as caught:
        splitter.feed(b"1")
    assert isinstance(caught.value, StreamError), "the loop treats it as a broken stream"


def test_a_long_line_inside_one_read_is_refused_too() -> None:
    splitter = LineSplitter(max_line=10, source="Ollama at http://127.0.0.1:1")
    with pytest.raises(LineTooLong) as caught:
        splitter.feed(b"ok\n" + b"x" * 11 + b"\nlater\n")
    assert str(caught.value) == (
        "Ollama at http://127.0.0.1:1 sent a line longer than 10 bytes without a break, so "
        "reading stopped there. What arrived before it is kept."
    )


def test_a_line_growing_over_many_reads_stops_at_the_limit_and_frees_the_buffer() -> None:
    splitter = LineSplitter(max_line=1000)
    fed = 0
    with pytest.raises(LineTooLong):
        while True:
            splitter.feed(b"y" * 64)
            fed += 64
    assert fed <= 1000, "it stopped at the first read that went over"
    assert splitter.flush() == [], "nothing of the refused line is kept in memory"


def test_crlf_split_between_reads_after_a_long_line_is_one_break() -> None:
    splitter = LineSplitter()
    big = "长" * 100_000  # 300 KB of UTF-8 over many reads
    data = big.encode() + b"\r"
    pieces = [data[i : i + 4096] for i in range(0, len(data), 4096)] + [b"\nnext\r\n"]
    assert feed_all(splitter, pieces) == [big, "next"]


def test_the_default_limit_is_eight_megabytes() -> None:
    assert MAX_LINE_BYTES == 8 * 1024 * 1024
    assert size_text(MAX_LINE_BYTES) == "8 MB"
    assert size_text(64 * 1024) == "64 KB"
