"""``metona-tray mcp serve``: this app's own tools as an MCP server over stdio.

Another MCP client (an editor, another agent) gets the built-in tools with everything around
them: the sandbox policy, previews, the approval rules, budgets, the undo journal and the audit
log. Each client connection is a chat of its own ("MCP client"), so its calls appear in the
popup's chat list. stdin/stdout carry the protocol, so nobody can be asked in this terminal:
a call that needs asking is approved only as far as ``--yes`` (writes) or ``--yes-all``
(everything but a change that makes something run later) allow, and is denied otherwise with a
sentence saying so — the client's model reads it like any refusal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
from typing import TYPE_CHECKING, Any

from tray_app.events import ApprovalNeeded
from tray_app.paths import AppPaths
from tray_app.tools.base import Risk, Tool

if TYPE_CHECKING:
    from tray_app.core.service import Core

SESSION_TITLE = "MCP client"
NOT_ASKED = (
    "{name} was not run: it needs approval and `metona-tray mcp serve` has no one to ask "
    "(start it with --yes to allow writes, or --yes-all for everything)"
)


def annotations_for(tool: Tool) -> dict[str, Any]:
    """What a client should know about each tool (MCP ``ToolAnnotations`` hints)."""
    read_only = tool.risk is Risk.READ
    return {
        "readOnlyHint": read_only,
        "destructiveHint": tool.risk in (Risk.DESTRUCTIVE, Risk.COMMAND),
        "openWorldHint": tool.risk is Risk.COMMAND,
    }


def approve(event: ApprovalNeeded, *, yes: bool, yes_all: bool) -> bool:
    """The flags' answer to an approval (a persistence risk is never approved here)."""
    preview = event.preview or {}
    if preview.get("persistence") or preview.get("budget"):
        return False
    if yes_all:
        return True
    return yes and event.risk == Risk.WRITE.value and not preview.get("deletes")


def _decider(core: Core, session_id: str, args: argparse.Namespace) -> threading.Event:
    """Answers this session's approvals from the flags, in a thread of its own."""
    stop = threading.Event()
    sub = core.bus.subscribe()

    def run() -> None:
        while not stop.is_set():
            event = sub.get(timeout=0.2)
            if not isinstance(event, ApprovalNeeded) or event.session_id != session_id:
                continue
            ok = approve(event, yes=args.yes, yes_all=args.yes_all)
            core.decide(event.call_id, ok, by="rule")
        sub.close()

    threading.Thread(target=run, name="metona-mcp-serve", daemon=True).start()
    return stop


def _tools(core: Core) -> list[Tool]:
    from tray_app.tools.registry import builtin_tools

    settings = core.settings
    return [
        tool
        for tool in builtin_tools()
        if settings.tools_enabled
        and tool.name not in settings.disabled_tools
        and (settings.run_command_enabled or tool.risk is not Risk.COMMAND)
    ]


def run_serve(args: argparse.Namespace) -> int:
    from tray_app.core.bootstrap import start_app

    app = start_app(AppPaths.from_env(), persist_settings=False, mcp="off")
    core = app.core
    stop: threading.Event | None = None
    try:
        session = core.new_session(workspace=args.workspace)
        session_id = str(session["id"])
        core.update_session(session_id, title=SESSION_TITLE)
        stop = _decider(core, session_id, args)
        asyncio.run(_serve(core, session_id, args))
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        print(f"metona-tray mcp serve: {exc}", file=sys.stderr)
        return 1
    finally:
        if stop is not None:
            stop.set()
        app.close()
    return 0


async def _serve(core: Core, session_id: str, args: argparse.Namespace) -> None:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    tools = {tool.name: tool for tool in _tools(core)}

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool.name,
                    description=tool.description,
                    input_schema=tool.schema(),
                    annotations=types.ToolAnnotations.model_validate(annotations_for(tool)),
                )
                for tool in tools.values()
            ]
        )

    async def call_tool(_ctx: Any, params: Any) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        if name not in tools:
            text = f"unknown tool {name!r}"
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        future = core.start_tool(session_id, name, arguments)
        try:
            result = await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # the client cancelled: the call stops like a stopped turn
            raise
        if not result.get("success") and "was not run: the user denied" in str(
            result.get("error", "")
        ):
            result = {**result, "error": NOT_ASKED.format(name=name)}
        text = json.dumps(result, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(text=text)],
            structured_content=result,
            is_error=not result.get("success", False),
        )

    server: Server[Any] = Server("metona-tray", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
