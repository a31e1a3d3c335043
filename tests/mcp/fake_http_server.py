"""The test MCP server over the network: ``python -m tests.mcp.fake_http_server MODE MARKS``.

MODE is ``http`` (Streamable HTTP at ``/mcp``), ``sse`` (the older HTTP+SSE at ``/sse``),
``garbage`` (answers every request with 200 and an HTML page, like a misconfigured proxy) or
``redirect`` (answers every request with a 307 to ``--to URL``: somewhere not configured) or
``huge`` (answers every request with a 100 MB JSON body, sent as fast as it is read). It
serves the same tools as ``fake_server`` on 127.0.0.1 on a port the OS picks (or ``--port``,
to come back where a killed one was; ``--slow-probes`` holds pings while a file says so),
writes that port to ``MARKS/port`` once it listens, and appends one line per request it
receives to ``MARKS/requests`` (method, path, the ``Authorization`` and ``X-Tenant`` headers),
so a test waits on files and can check what the client sent and where.
"""

from __future__ import annotations

import argparse
import os
import socket
from pathlib import Path
from typing import Any

import anyio
import uvicorn

from tests.mcp.fake_server import server

Scope = dict[str, Any]


def recording(app: Any, marks: Path) -> Any:
    """The ASGI app, with every request it receives written down first."""

    async def wrapped(scope: Scope, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
            auth = headers.get("authorization", b"").decode("utf-8", "replace")
            tenant = headers.get("x-tenant", b"").decode("utf-8", "replace")
            line = f"{scope.get('method')} {scope.get('path')} auth={auth} tenant={tenant}\n"
            with (marks / "requests").open("a", encoding="utf-8") as log:
                log.write(line)
        await app(scope, receive, send)

    return wrapped


async def garbage(scope: Scope, receive: Any, send: Any) -> None:
    """Not an MCP server: every request gets a web page."""
    if scope.get("type") != "http":
        return
    body = "<html><body>Welcome 欢迎 \u202e gnp.exe</body></html>".encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/html; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def huge(scope: Scope, receive: Any, send: Any) -> None:
    """A JSON answer far larger than any client should hold: 100 MB of padding."""
    if scope.get("type") != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    chunk = b" " * (1024 * 1024)
    for _ in range(100):
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b"{}"})


PROBES = (b'"server/discover"', b'"ping"')


def slow_probes(app: Any, marks: Path) -> Any:
    """The app, but a liveness probe (``ping``, ``server/discover``) waits while the file
    ``MARKS/hold-probes`` exists; each probe is written to ``MARKS/probes`` when it arrives."""

    async def wrapped(scope: Scope, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        if any(probe in body for probe in PROBES):
            with (marks / "probes").open("a", encoding="utf-8") as log:
                log.write("probe\n")
            while (marks / "hold-probes").exists():  # noqa: ASYNC110 (a file: no event)
                await anyio.sleep(0.02)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return wrapped


def redirect(target: str) -> Any:
    async def app(scope: Scope, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            return
        headers = [(b"location", target.encode()), (b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 307, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["http", "sse", "garbage", "redirect", "huge"])
    parser.add_argument("marks", type=Path)
    parser.add_argument("--to", default="")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--slow-probes", action="store_true")
    args = parser.parse_args()
    os.environ["FAKE_MCP_MARKS"] = str(args.marks)  # the tools' own marks land there too
    if args.mode == "http":
        app = server.streamable_http_app(host="127.0.0.1")
    elif args.mode == "sse":
        app = server.sse_app(host="127.0.0.1")
    elif args.mode == "huge":
        app = huge
    elif args.mode == "redirect":
        app = redirect(args.to)
    else:
        app = garbage
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)
    port = sock.getsockname()[1]
    lifespan = "on" if args.mode in ("http", "sse") else "off"
    if args.slow_probes:
        app = slow_probes(app, args.marks)
    config = uvicorn.Config(recording(app, args.marks), log_level="warning", lifespan=lifespan)
    http = uvicorn.Server(config)

    async def serve() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(http.serve, [sock])
            while not http.started:  # noqa: ASYNC110 (uvicorn offers no event for it)
                await anyio.sleep(0.01)
            tmp = args.marks / "port.tmp"
            tmp.write_text(str(port), encoding="utf-8")
            tmp.replace(args.marks / "port")

    anyio.run(serve)


if __name__ == "__main__":
    main()
