"""MCP tools as ``Tool`` objects, so they go through the same registry, approvals, cards,
notifications, budgets, repeat guard and audit log as the built-in ones.

Declared through ``tools.external.external_tool``: the model sees the server's own (cleaned)
schema, the required keys are checked here and the server checks the rest. The preview is
what the approval shows: the server, the tool, what its annotations say, and the arguments
pretty-printed (the page and the terminal show text as text, never as markup).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from tray_app.mcp.connection import RemoteTool, describe_error
from tray_app.mcp.manager import McpManager
from tray_app.mcp.naming import describe, model_schema, risk_of, tool_name
from tray_app.mcp.results import convert
from tray_app.mcp.sse_limit import SSE_EVENT_LIMIT_MB, SseAnswerTooLarge
from tray_app.tools.base import Risk, Tool, ToolContext
from tray_app.tools.external import ExternalArgs, external_tool
from tray_app.tools.result import ToolResult, failure

MAX_PREVIEW_ARGS = 8_000  # characters of pretty-printed arguments on the approval card


#: Characters that would hide or reorder what the user reads (bidi controls, zero-width and
#: C1 controls): written as JSON escapes, which they can only be inside (strings), so the text
#: stays the same JSON and the user sees ``\u202e`` instead of reversed text.
_HIDDEN = {
    c: f"\\u{c:04x}"
    for c in (
        *range(0x80, 0xA0),
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2070),
        0xFEFF,
    )
}


def pretty_arguments(arguments: dict[str, Any]) -> str:
    """The arguments as indented JSON for the approval, with invisible characters escaped."""
    text = json.dumps(arguments, ensure_ascii=False, indent=2, sort_keys=True, default=str)
    text = text.translate(_HIDDEN)
    if len(text) > MAX_PREVIEW_ARGS:
        text = f"{text[:MAX_PREVIEW_ARGS]}\n…[{len(text) - MAX_PREVIEW_ARGS} more characters]"
    return text


def build_tool(manager: McpManager, remote: RemoteTool, name: str, trust: str) -> Tool:
    """One registry entry for one remote tool."""
    risk, untrusted_read = risk_of(remote.annotations, trust)
    server, original = remote.server, remote.name

    def run(arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            raw = manager.call(
                server, original, arguments, cancel=ctx.cancel, progress=ctx.progress
            )
        except TimeoutError:
            config = manager.config(server)
            limit = config.timeout_s if config is not None else 0
            return failure(
                f"{server} did not answer {original} within {limit:g} s; cancelled",
                code="mcp_timed_out",
                params={"server": server, "tool": original, "seconds": limit},
            )
        except SseAnswerTooLarge:
            return failure(
                f"{server} answered {original} with more than {SSE_EVENT_LIMIT_MB} MB, the most "
                "an SSE connection carries (the server is being started again); ask for less, "
                "or use the server's Streamable HTTP address, which carries up to 64 MB",
                code="mcp_sse_too_large",
                params={"server": server, "tool": original, "megabytes": SSE_EVENT_LIMIT_MB},
                server=server,
            )
        except RuntimeError as exc:
            if str(exc).startswith("cancelled"):
                params = {"server": server, "tool": original}
                return failure(
                    str(exc), code="mcp_cancelled", params=params, server=server, cancelled=True
                )
            params = {"server": server, "tool": original, "detail": str(exc)}
            return failure(str(exc), code="mcp_call_failed", params=params, server=server)
        except Exception as exc:  # the SDK's MCPError, a broken connection, a bad result
            if _connection_closed(exc):
                return failure(
                    f"the MCP server {server} stopped while running {original} (it is being "
                    "started again); the call may or may not have done its work",
                    code="mcp_server_stopped",
                    params={"server": server, "tool": original},
                    server=server,
                )
            detail = describe_error(exc)
            return failure(
                f"{server} could not run {original}: {detail}",
                code="mcp_call_failed",
                params={"server": server, "tool": original, "detail": detail},
            )
        return convert(raw, server=server, tool=original)

    def preview(_ctx: ToolContext, args: ExternalArgs) -> ToolResult:
        arguments_text = pretty_arguments(args.arguments())
        facts: dict[str, Any] = {
            "kind": "mcp",
            "server": server,
            "mcp_tool": original,
            "arguments_text": arguments_text,
            "read_only_hint": remote.annotations.get("readOnlyHint") is True,
            "destructive": risk is Risk.DESTRUCTIVE,
            "text": f"{server} → {original}\n{arguments_text}",
        }
        if risk is Risk.WRITE and not untrusted_read:
            facts["overwrites"] = True  # we cannot know it only adds: asks in delete_only too
        return facts

    label = remote.title or remote.annotations.get("title") or original
    tool = external_tool(
        name=name,
        description=describe(server, remote.description, remote.title),
        schema=model_schema(remote.input_schema),
        call=run,
        risk=risk,
        title_key="tool_title.mcp",
        title_params={"label": label, "server": server},
        origin=f"mcp:{server}",
    )
    return replace(tool, preview=preview)


def _connection_closed(exc: Exception) -> bool:
    from mcp_types import CONNECTION_CLOSED

    return getattr(exc, "code", None) == CONNECTION_CLOSED


class McpTools:
    """The ready servers' tools as ``Tool`` objects, rebuilt only when something changed."""

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager
        self._built: tuple[int, frozenset[str], list[Tool]] | None = None

    def tools(self, taken: set[str]) -> list[Tool]:
        version = self.manager.version
        key = frozenset(taken)
        if self._built is not None and self._built[:2] == (version, key):
            return self._built[2]
        names = set(taken)
        out: list[Tool] = []
        for state in self.manager.snapshot():
            config = self.manager.config(state.name)
            if state.status != "ready" or config is None:
                continue
            for remote in state.tools:
                if remote.name in config.disabled_tools:
                    continue  # switched off in Settings: the model never sees it
                name = tool_name(remote.server, remote.name, names)
                names.add(name)
                out.append(build_tool(self.manager, remote, name, config.trust))
        self._built = (version, key, out)
        return out
