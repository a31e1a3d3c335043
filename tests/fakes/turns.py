"""Scripted model turns for the fake servers.

A ``Turn`` says *what* the model answers (thinking, content, tool calls, how the stream ends);
each fake server renders it in its own wire format: ``FakeOllama`` as NDJSON, ``FakeOpenAI`` as
SSE. So the same ``text_turn("hi")`` can be scripted on either.

Hostile servers: ``busy_turn`` (429/503 with ``Retry-After``), ``huge_error_turn`` (an error body
of any size, generated while it is sent), ``long_line_turn`` / ``long_event_turn`` (a line or an
SSE event that never ends), ``endless_turn`` (answer chunks until the client hangs up) and
``hold_open_turn`` (a complete answer, then the connection stays open). Nothing big is built in
memory: the servers write these from generators and stop when the client hangs up.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Ending = Literal["done", "error", "drop", "eof", "long_line", "long_event", "endless"]
FILLER = b"A" * 65536  # what long lines and huge bodies are made of, one write at a time

#: The recorded wire transcripts, copied into ``tests/fakes/wire`` so a fresh clone works on its
#: own (``METONA_WIRE_FIXTURES`` points elsewhere).
WIRE_DIR = Path(os.environ.get("METONA_WIRE_FIXTURES", Path(__file__).with_name("wire")))


@dataclass(frozen=True)
class CallSpec:
    """One scripted call. ``arguments`` given as a string go out verbatim (bad JSON included)."""

    name: str
    arguments: dict[str, Any] | str
    id: str | None = None

    def arguments_text(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(frozen=True)
class Turn:
    """One scripted answer. Build it with the ``*_turn`` functions, not by hand."""

    kind: Literal["stream", "http_error", "huge_error", "raw"] = "stream"
    content: str = ""
    thinking: str = ""
    calls: tuple[CallSpec, ...] = ()
    chunk_chars: int = 4
    delay: float = 0.0
    ending: Ending = "done"
    error: str = ""
    status: int = 200
    on_done_chunk: bool = False
    split_arguments: bool = False
    arguments_as_string: bool = False
    with_ids: bool = True
    done_reason: str = "stop"
    raw: tuple[bytes, ...] = field(default=(), repr=False)
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()  # extra response headers (Retry-After)
    size: int = 0  # bytes of a long line, long event or huge error body
    chunked: bool = False  # huge_error: chunked instead of Content-Length
    hold_open: float = 0.0  # seconds the connection stays open after the last chunk
    done_marker: bool = True  # OpenAI: send ``data: [DONE]`` (and usage) after finish_reason

    def pieces(self, text: str) -> list[str]:
        """``text`` cut into the small pieces a model streams (``chunk_chars`` characters)."""
        size = max(1, self.chunk_chars)
        return [text[i : i + size] for i in range(0, len(text), size)]


def text_turn(
    content: str,
    *,
    thinking: str = "",
    chunk_chars: int = 4,
    delay: float = 0.0,
    done_reason: str = "stop",
) -> Turn:
    """A plain answer, optionally preceded by thinking (sent in the ``thinking`` field)."""
    return Turn(
        content=content,
        thinking=thinking,
        chunk_chars=chunk_chars,
        delay=delay,
        done_reason=done_reason,
    )


def _call_specs(
    calls: Sequence[tuple[str, dict[str, Any]] | dict[str, Any]],
) -> tuple[CallSpec, ...]:
    specs: list[CallSpec] = []
    for call in calls:
        if isinstance(call, dict):
            arguments = call.get("arguments", {})
            arguments = arguments if isinstance(arguments, str) else dict(arguments)
            specs.append(CallSpec(call["name"], arguments, call.get("id")))
        else:
            name, arguments = call
            specs.append(
                CallSpec(name, arguments if isinstance(arguments, str) else dict(arguments))
            )
    return tuple(specs)


def tool_turn(
    calls: Sequence[tuple[str, dict[str, Any]] | dict[str, Any]],
    *,
    content: str = "",
    thinking: str = "",
    on_done_chunk: bool = False,
    split_arguments: bool = False,
    arguments_as_string: bool = False,
    with_ids: bool = True,
    chunk_chars: int = 4,
    delay: float = 0.0,
) -> Turn:
    """Tool calls, after optional thinking and content.

    ``calls`` are ``(name, arguments)`` pairs or ``{"name", "arguments", "id"?}`` dicts; string
    arguments are sent as that exact JSON text (to script invalid arguments).
    Ollama rendering: each call in its own chunk after the content (like real Ollama), or all
    of them on the ``done`` chunk with ``on_done_chunk``; ``split_arguments`` sends the name
    first and the arguments in later name-less chunks (objects key by key, or JSON text in
    fragments with ``arguments_as_string``). Generated ids look like ``call_00000001``.
    """
    return Turn(
        content=content,
        thinking=thinking,
        calls=_call_specs(calls),
        on_done_chunk=on_done_chunk,
        split_arguments=split_arguments,
        arguments_as_string=arguments_as_string,
        with_ids=with_ids,
        chunk_chars=chunk_chars,
        delay=delay,
    )


def error_turn(status: int, message: str) -> Turn:
    """An HTTP error answer with the server's error body carrying ``message``."""
    return Turn(kind="http_error", status=status, error=message)


def midstream_error_turn(partial_content: str, message: str, *, chunk_chars: int = 4) -> Turn:
    """Status 200, some content, then an error object in the stream, then the end of the body."""
    return Turn(content=partial_content, ending="error", error=message, chunk_chars=chunk_chars)


def drop_turn(partial_content: str, *, chunk_chars: int = 4) -> Turn:
    """Some content, then the socket is closed in the middle of the chunked body."""
    return Turn(content=partial_content, ending="drop", chunk_chars=chunk_chars)


def eof_turn(partial_content: str, *, chunk_chars: int = 4) -> Turn:
    """Some content, then a clean end of the body without the final chunk (``done``/``[DONE]``)."""
    return Turn(content=partial_content, ending="eof", chunk_chars=chunk_chars)


def slow_turn(content: str, *, delay: float, chunk_chars: int = 4, thinking: str = "") -> Turn:
    """A text answer with ``delay`` seconds between chunks, for abort tests.

    The waits notice a client that hung up (``connections_closed_early``) and a server shutdown.
    """
    return text_turn(content, thinking=thinking, chunk_chars=chunk_chars, delay=delay)


def raw_turn(
    lines: Sequence[str | bytes],
    *,
    status: int = 200,
    content_type: str | None = None,
    delay: float = 0.0,
    write_size: int | None = None,
) -> Turn:
    """Replay a body verbatim: each ``str`` is one line (``\\n`` added if missing), each
    ``bytes`` item is written exactly as given, so a test can cut anywhere (even inside a UTF-8
    character). Each item is one HTTP chunk; ``write_size`` re-cuts the whole body into writes
    of that many bytes instead.
    """
    pieces: list[bytes] = []
    for line in lines:
        if isinstance(line, bytes):
            pieces.append(line)
        else:
            pieces.append((line if line.endswith("\n") else line + "\n").encode())
    if write_size:
        body = b"".join(pieces)
        pieces = [body[i : i + write_size] for i in range(0, len(body), write_size)]
    return Turn(
        kind="raw", raw=tuple(pieces), status=status, content_type=content_type, delay=delay
    )


def fixture_turn(name: str, *, delay: float = 0.0, write_size: int | None = None) -> Turn:
    """Replay a recorded transcript from the wire fixtures, line by line, byte for byte."""
    data = (WIRE_DIR / name).read_bytes()
    return raw_turn(data.splitlines(keepends=True), delay=delay, write_size=write_size)


def busy_turn(
    status: int = 503,
    message: str = "server busy, please try again.  maximum pending requests exceeded",
    *,
    retry_after: str | None = None,
) -> Turn:
    """A 429/503 refusal in the server's error shape, with ``Retry-After`` if given."""
    headers = () if retry_after is None else (("Retry-After", retry_after),)
    return Turn(kind="http_error", status=status, error=message, headers=headers)


def huge_error_turn(size: int, *, status: int = 500, chunked: bool = False) -> Turn:
    """An HTML error page of ``size`` bytes (a broken proxy), generated while it is written."""
    return Turn(kind="huge_error", status=status, size=size, chunked=chunked)


def long_line_turn(content: str, size: int, *, chunk_chars: int = 4) -> Turn:
    """``content`` in normal chunks, then ``size`` bytes on one line that never ends."""
    return Turn(content=content, ending="long_line", size=size, chunk_chars=chunk_chars)


def long_event_turn(content: str, size: int) -> Turn:
    """SSE only: ``content``, then ``data:`` lines adding up to ``size`` bytes, never a blank
    line (so the event never ends)."""
    return Turn(content=content, ending="long_event", size=size)


def endless_turn(piece: str = "la ", *, delay: float = 0.0) -> Turn:
    """Answer chunks of ``piece`` for ever, until the client hangs up or the server stops."""
    return Turn(content=piece, ending="endless", chunk_chars=max(1, len(piece)), delay=delay)


def hold_open_turn(content: str, *, hold: float = 600.0, done_marker: bool = True) -> Turn:
    """A complete answer, then the connection stays open ``hold`` seconds (or until the client
    hangs up). OpenAI with ``done_marker=False``: ``finish_reason`` but no usage or ``[DONE]``."""
    return Turn(content=content, hold_open=hold, done_marker=done_marker)
