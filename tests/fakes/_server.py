"""What the fake model servers share: a real HTTP/1.1 server on 127.0.0.1, request recording,
a queue of scripted turns, chunked streaming that reaches the client chunk by chunk, and the
bookkeeping abort tests need (clients that hang up before the end of a stream).
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from tests.fakes.turns import FILLER, Turn

S = TypeVar("S", bound="FakeServer")
Headers = Sequence[tuple[str, str]]


class ClientGone(Exception):
    """The client closed the connection before the stream was complete."""


class ServerStopping(Exception):
    """The fake server is shutting down; abandon the stream."""


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class Reply:
    """How a route answers: a whole JSON/text body, or a chunked stream written piece by piece."""

    def __init__(self, handler: _Handler) -> None:
        self._handler = handler
        self._server = handler.fake

    def body(self, status: int, data: bytes, content_type: str, headers: Headers = ()) -> None:
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def json(self, status: int, obj: Any, headers: Headers = ()) -> None:
        data = json.dumps(obj, separators=(",", ":")).encode()
        self.body(status, data, "application/json; charset=utf-8", headers)

    def start_sized(self, status: int, content_type: str, length: int) -> None:
        """Headers for a body of ``length`` bytes that ``write_raw`` then sends piece by piece."""
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(length))
        handler.end_headers()

    def write_raw(self, data: bytes) -> None:
        self._send(data)

    def text(self, status: int, text: str) -> None:
        self.body(status, text.encode(), "text/plain; charset=utf-8")

    def start_stream(self, status: int, content_type: str) -> None:
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()

    def write(self, data: bytes) -> None:
        """One HTTP chunk, on the wire before this returns (the socket is unbuffered)."""
        if not data:
            return
        self._send(b"%x\r\n%s\r\n" % (len(data), data))

    def end(self) -> None:
        self._send(b"0\r\n\r\n")

    def drop(self) -> None:
        """Close the connection in the middle of the body, without the terminating chunk."""
        self._handler.close_connection = True
        with contextlib.suppress(OSError):
            self._handler.connection.shutdown(socket.SHUT_RDWR)

    def pause(self, seconds: float) -> None:
        """Wait, but give up at once if the client hangs up or the server stops."""
        if seconds <= 0:
            return
        deadline = time.monotonic() + seconds
        sock = self._handler.connection
        while True:
            if self._server.stopping.is_set():
                raise ServerStopping
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            readable, _, _ = select.select([sock], [], [], min(remaining, 0.05))
            if readable:
                try:
                    peeked = sock.recv(1, socket.MSG_PEEK)
                except OSError as exc:
                    raise ClientGone from exc
                if not peeked:
                    raise ClientGone
                self._server.stopping.wait(min(remaining, 0.05))

    def _send(self, data: bytes) -> None:
        if self._server.stopping.is_set():
            raise ServerStopping
        try:
            self._handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ClientGone from exc


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeServer  # set on the per-server subclass

    def setup(self) -> None:
        super().setup()
        # Without this, Nagle's algorithm can hold a small chunk back until the previous one
        # is acknowledged: streams would arrive in clumps instead of chunk by chunk.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.fake.track(self.connection, open_=True)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.fake.track(self.connection, open_=False)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the recorded requests tell tests what happened."""

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=self.command,
            path=self.path.split("?", 1)[0],
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        self.fake.record(request)
        reply = Reply(self)
        try:
            self.fake.handle(request, reply)
        except ClientGone:
            self.close_connection = True
            self.fake.count_early_close()
        except ServerStopping:
            self.close_connection = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that resets a kept-alive connection is normal, not worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeServer:
    """Base of ``FakeOllama`` and ``FakeOpenAI``: lifecycle, recording, the turn queue."""

    name = "fake server"
    chat_path = ""

    def __init__(self, models: dict[str, list[str]], *, default_turn: Turn | None = None) -> None:
        self.models = {name: list(capabilities) for name, capabilities in models.items()}
        self.default_turn = default_turn
        self.stopping = threading.Event()
        self._lock = threading.Condition()
        self._turns: deque[Turn] = deque()
        self._requests: list[RecordedRequest] = []
        self._early_closes = 0
        self._connections: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    # -- lifecycle -------------------------------------------------------------------------

    def start(self: S) -> S:
        handler = type("Handler", (_Handler,), {"fake": self})
        httpd = _HTTPServer(("127.0.0.1", 0), handler)
        self._httpd = httpd
        self.url = f"http://127.0.0.1:{httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; streams still running end at their next write or pause."""
        if self._httpd is None:
            return
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:  # idle keep-alive connections would keep their threads alive
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self: S) -> S:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- models and scripting --------------------------------------------------------------

    def add_model(self, name: str, capabilities: list[str]) -> None:
        self.models[name] = list(capabilities)

    def find_model(self, model: str) -> str | None:
        """The configured name ``model`` refers to (``llama3.2`` is ``llama3.2:latest``)."""
        return next((name for name in self.models if same_model(name, model)), None)

    def script(self, *turns: Turn) -> None:
        """Queue answers for the chat endpoint, served in order, one per request."""
        with self._lock:
            self._turns.extend(turns)

    @property
    def pending_turns(self) -> int:
        with self._lock:
            return len(self._turns)

    def next_turn(self) -> Turn | None:
        with self._lock:
            return self._turns.popleft() if self._turns else self.default_turn

    def without_tools(self, turn: Turn, body: dict[str, Any], capabilities: list[str]) -> Turn:
        """A model without the ``tools`` capability has no structured calls: the calls a test
        scripted for it come as ``<tool_call>{json}</tool_call>`` text (how Hermes-trained
        models write them) when the system prompt describes that convention, else as a
        sentence saying it has no tools."""
        if "tools" in capabilities or not turn.calls:
            return turn
        messages = body.get("messages")
        first = messages[0] if isinstance(messages, list) and messages else {}
        system = first.get("content") if first.get("role") == "system" else ""
        if isinstance(system, str) and "<tool_call>" in system:
            text = "".join(
                "<tool_call>"
                + json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
                + "</tool_call>\n"
                for call in turn.calls
            )
        else:
            text = "I have no tools to do that here."
        return replace(turn, content=turn.content + text, calls=())

    def script_exhausted(self) -> str:
        """The error text for a chat request that finds the script empty."""
        count = len(self.chat_requests)
        return (
            f"{self.name}: no scripted turn left for chat request #{count}; "
            "queue answers with .script(...)"
        )

    # -- recording -------------------------------------------------------------------------

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._lock.notify_all()

    def track(self, conn: socket.socket, *, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def count_early_close(self) -> None:
        with self._lock:
            self._early_closes += 1
            self._lock.notify_all()

    @property
    def all_requests(self) -> list[RecordedRequest]:
        """Every request to any path, in arrival order (a snapshot)."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies sent to the chat endpoint, in order (a snapshot)."""
        with self._lock:
            return self._chat_bodies()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Same as ``chat_requests``."""
        return self.chat_requests

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self._requests if r.path == path]

    def wait_for_requests(self, n: int, timeout: float = 10) -> list[dict[str, Any]]:
        """Block until at least ``n`` chat requests arrived; return them all."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self._chat_bodies()) >= n, timeout):
                got = len(self._chat_bodies())
                raise AssertionError(
                    f"{self.name}: {got} chat request(s) after {timeout} s, not {n}"
                )
            return self._chat_bodies()

    def _chat_bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self._requests if r.path == self.chat_path]

    @property
    def connections_closed_early(self) -> int:
        """Streams whose client hung up before the end (noticed at a write or a pause)."""
        with self._lock:
            return self._early_closes

    def wait_for_client_disconnect(self, timeout: float = 10, *, count: int = 1) -> bool:
        """Block until ``count`` streams were abandoned by their client (True), or fail the test."""
        with self._lock:
            if not self._lock.wait_for(lambda: self._early_closes >= count, timeout):
                raise AssertionError(
                    f"{self.name}: the client did not hang up within {timeout} s "
                    f"({self._early_closes} early close(s), expected {count})"
                )
            return True

    # -- routing ---------------------------------------------------------------------------

    def handle(self, request: RecordedRequest, reply: Reply) -> None:
        raise NotImplementedError

    def serve_stream(self, reply: Reply, status: int, content_type: str, pieces: Any) -> None:
        """Write a stream: ``pieces`` yields bytes to send, floats to pause, or ``None`` to drop."""
        reply.start_stream(status, content_type)
        for piece in pieces:
            if piece is None:
                reply.drop()
                return
            if isinstance(piece, (int, float)):
                reply.pause(piece)
            else:
                reply.write(piece)
        reply.end()

    def serve_huge_error(self, reply: Reply, turn: Turn) -> None:
        """An HTML error page of ``turn.size`` bytes, written 64 KB at a time from a generator."""
        head = b"<html><head><title>Bad Gateway</title></head><body><h1>Upstream error</h1><pre>"
        if turn.chunked:
            self.serve_stream(reply, turn.status, "text/html", filled(head, turn.size))
            return
        reply.start_sized(turn.status, "text/html", turn.size)
        for piece in filled(head, turn.size):
            reply.write_raw(piece)

    def serve_raw(self, reply: Reply, turn: Turn, content_type: str) -> None:
        """Replay a ``raw_turn`` verbatim, with its ``delay`` between pieces."""
        pieces: list[bytes | float] = []
        for number, piece in enumerate(turn.raw):
            pieces.extend([turn.delay, piece] if number and turn.delay else [piece])
        self.serve_stream(reply, turn.status, turn.content_type or content_type, pieces)


def filled(head: bytes, size: int) -> Iterator[bytes]:
    """``head`` then filler up to ``size`` bytes in all, 64 KB per piece (never built whole)."""
    head = head[:size]
    yield head
    left = size - len(head)
    while left > 0:
        piece = FILLER[:left]
        left -= len(piece)
        yield piece


def registry_name(model: str) -> str:
    """Ollama's fully qualified name: ``gemma3:4b`` -> ``registry.ollama.ai/library/gemma3:4b``."""
    name = model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"
    if name.count("/") == 0:
        name = f"library/{name}"
    if name.count("/") == 1:
        name = f"registry.ollama.ai/{name}"
    return name


def same_model(a: str, b: str) -> bool:
    return registry_name(a) == registry_name(b)
