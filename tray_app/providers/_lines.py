"""Splitting a streamed body into lines, in time linear in the bytes received, with a cap.

Each read is scanned once: only the new bytes are searched for line ends, and the unfinished
line is kept in a buffer that only grows by appending. A line longer than ``MAX_LINE_BYTES``
stops the stream with ``LineTooLong`` instead of growing the buffer without bound (a server
that never sends a newline would otherwise cost memory until the read timeout).
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator

import httpx

from tray_app.base.errors import LineTooLong

MAX_LINE_BYTES = 8 * 1024 * 1024  # one NDJSON chunk or SSE event; real ones are a few hundred B
_EOL = re.compile(rb"\r\n?|\n")


def size_text(limit: int) -> str:
    """``8 MB`` for 8 MiB, ``512 KB`` for smaller limits (tests use small ones)."""
    if limit >= 1024 * 1024:
        return f"{limit / (1024 * 1024):g} MB"
    return f"{limit / 1024:g} KB" if limit >= 1024 else f"{limit} bytes"


def line_too_long(source: str, limit: int, what: str = "a line") -> LineTooLong:
    return LineTooLong(
        f"{source} sent {what} longer than {size_text(limit)} without a break, so reading "
        "stopped there. What arrived before it is kept."
    )


class LineSplitter:
    """Split a byte stream into lines at ``\\n``, ``\\r\\n`` or ``\\r``, and nowhere else.

    httpx's ``aiter_lines`` uses ``str.splitlines``, which also breaks at U+0085, U+2028,
    U+001C… Go's JSON encoder leaves U+0085 unescaped, so a model writing that character would
    cut an NDJSON line in two. Lines are decoded only once complete, so a UTF-8 character split
    across network reads is never torn either.
    """

    def __init__(self, *, max_line: int = MAX_LINE_BYTES, source: str = "The server") -> None:
        self._buffer = bytearray()
        self._skip_lf = False
        self._max = max_line
        self._source = source

    def feed(self, data: bytes) -> list[str]:
        if self._skip_lf and data[:1] == b"\n":
            data = data[1:]
        self._skip_lf = False
        lines: list[str] = []
        start = 0
        for match in _EOL.finditer(data):  # only the new bytes: a line end never spans reads
            piece = data[start : match.start()]
            if self._buffer:
                self._check(len(self._buffer) + len(piece))
                self._buffer += piece
                piece = bytes(self._buffer)
                self._buffer.clear()
            else:
                self._check(len(piece))
            lines.append(piece.decode("utf-8", "replace"))
            start = match.end()
        if start:
            # A lone "\r" at the very end may be the first half of a "\r\n" split in two reads.
            self._skip_lf = start == len(data) and data[start - 1 : start] == b"\r"
        self._check(len(self._buffer) + len(data) - start)
        self._buffer += data[start:]
        return lines

    def flush(self) -> list[str]:
        rest = self._buffer.decode("utf-8", "replace")
        self._buffer.clear()
        return [rest] if rest else []

    def _check(self, size: int) -> None:
        if size > self._max:
            self._buffer.clear()
            raise line_too_long(self._source, self._max)


async def iter_lines(
    response: httpx.Response, *, source: str = "The server", max_line: int = MAX_LINE_BYTES
) -> AsyncGenerator[str, None]:
    splitter = LineSplitter(max_line=max_line, source=source)
    async for data in response.aiter_bytes():
        for line in splitter.feed(data):
            yield line
    for line in splitter.flush():
        yield line
