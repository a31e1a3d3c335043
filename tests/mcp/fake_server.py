"""An MCP server for the tests, written with the SDK: ``python -m tests.mcp.fake_server``.

Tools with and without annotations, an error result, an image, an embedded resource and a
resource link, structured content, a slow tool that reports progress and honours
cancellation, a tool list that grows, the client's roots, and a crash. ``FAKE_MCP_MARKS`` names
a folder where the server writes what happened (``cancelled``, ``started-<pid>``) so tests can
wait on files instead of guessing (and ``token-<pid>``: the ``FAKE_MCP_TOKEN`` it was given).
``--http PORT`` serves Streamable HTTP instead of stdio.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import (
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)

# A 1x1 red PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

server = MCPServer("fake")


def mark(name: str, text: str = "") -> None:
    folder = os.environ.get("FAKE_MCP_MARKS")
    if folder:  # whole or not at all: a test may read it the moment it appears
        part = Path(folder, f".{name}.part")
        part.write_text(text, encoding="utf-8")
        part.replace(Path(folder, name))


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def add_note(text: str) -> str:
    """Add a note (only adds)."""
    mark("note", text)
    return "noted"


@server.tool()
def wipe(target: str) -> str:
    """Wipe something (no annotations: destructive by the spec's default)."""
    mark("wiped", target)
    return f"wiped {target}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def fail(reason: str = "it broke") -> str:
    """Always fails."""
    raise ToolError(reason)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def picture() -> list[Any]:
    """A tiny image and a caption."""
    return [
        Image(data=PNG, format="png").to_image_content(),
        TextContent(type="text", text="a red dot"),
    ]


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def pictures(count: int, kilobytes: int = 0, caption: str = "") -> list[Any]:
    """``count`` PNGs, each padded to ``kilobytes`` KB (a hostile server's huge images), told
    apart by their last byte; a PDF and a caption beside them."""
    images = [
        Image(data=PNG + b"\0" * (kilobytes * 1024) + bytes([n % 256]), format="png")
        for n in range(count)
    ]
    pdf = ImageContent(
        type="image", data=base64.b64encode(b"%PDF-1.7").decode(), mimeType="application/pdf"
    )
    return [*(i.to_image_content() for i in images), pdf, TextContent(type="text", text=caption)]


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def mirrored() -> CallToolResult:
    """A PNG in the content, mirrored in structuredContent beside one found only there."""
    shown = base64.b64encode(PNG).decode()
    only_here = base64.b64encode(PNG + b"only here").decode()
    return CallToolResult(
        content=[ImageContent(type="image", data=shown, mimeType="image/png")],
        structured_content={
            "shot": {"type": "image", "data": shown, "mimeType": "image/png"},
            "extra": [{"type": "image", "data": only_here, "mimeType": "image/png"}],
            "title": "截图 \u202e🙂",
        },
    )


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def resources() -> list[Any]:
    """An embedded text resource and a link to another."""
    return [
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="file:///notes/a.txt", mime_type="text/plain", text="内容 📄"
            ),
        ),
        ResourceLink(type="resource_link", uri="file:///notes/b.txt", name="b.txt"),
        TextContent(type="text", text="two resources"),
    ]


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=True)
def weather(city: str) -> dict[str, Any]:
    """Structured content."""
    return {"city": city, "celsius": 21.5}


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def slow(steps: int, ctx: Context) -> str:
    """Reports progress each step; waits for ``go`` in the marks folder before each step after
    the first, so a test decides when it moves on (or cancels it)."""
    try:
        for step in range(steps):
            await ctx.report_progress(step + 1, steps, f"step {step + 1}")
            mark(f"step-{step + 1}")
            folder = os.environ.get("FAKE_MCP_MARKS")
            # The test writes ``go`` from another process: looked at between short pauses.
            while folder and step + 1 < steps and not Path(folder, "go").exists():  # noqa: ASYNC110, ASYNC240
                await anyio.sleep(0.02)
    except BaseException:
        mark("cancelled")
        raise
    return f"done after {steps} steps"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def grow(ctx: Context) -> str:
    """Adds the tool ``late`` and says the list changed."""

    def late() -> str:
        """A tool that arrived later."""
        return "late"

    server.add_tool(late, annotations=ToolAnnotations(read_only_hint=True))
    await ctx.notify_tools_changed()  # 2026-era clients listen for this
    with contextlib.suppress(Exception):  # handshake-era clients get the notification
        await ctx.request_context.session.send_tool_list_changed()
    return "grown"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def roots(ctx: Context) -> str:
    """The client's roots, one URI a line."""
    try:
        found = await ctx.request_context.session.list_roots()
    except Exception as exc:  # a 2026-era connection has no back-channel for it
        return f"no roots: {exc}"
    return "\n".join(str(r.uri) for r in found.roots)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def crash() -> str:
    """Ends the server process at once."""
    sys.stdout.flush()
    os._exit(3)


#: With ``FAKE_MCP_HOSTILE=1`` the server also offers a tool whose name and 10 KB description
#: carry CJK, emoji, line breaks, a tab and a bidi override (U+202E).
HOSTILE_TOOL = "报告\u202e工具 🙂"
HOSTILE_DESCRIPTION = "第一行：读取报告 📄\n\t第二行 \u202eevil.exe\n" + "长文本" * 3400


def hostile(text: str = "") -> str:
    return f"hostile: {text}"


def main() -> None:
    if os.environ.get("FAKE_MCP_HOSTILE") == "1":
        server.add_tool(
            hostile,
            name=HOSTILE_TOOL,
            description=HOSTILE_DESCRIPTION,
            annotations=ToolAnnotations(read_only_hint=True),
        )
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=0)
    args = parser.parse_args()
    with contextlib.suppress(OSError):  # in a sandbox the marks folder may not be there
        mark(f"started-{os.getpid()}")
        if "FAKE_MCP_TOKEN" in os.environ:  # what the client put in the env (a keyring secret)
            mark(f"token-{os.getpid()}", os.environ["FAKE_MCP_TOKEN"])
    print(f"fake MCP server {os.getpid()} starting", file=sys.stderr, flush=True)
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
