"""``metona-tray mcp serve``: this app's own tools as an MCP server over stdio.

Another MCP client (an editor, another agent) gets the built-in tools with everything around
them: the sandbox policy, previews, the approval rules, budgets, the undo journal and the audit
log. While the app runs, it also gets the tools of the MCP servers the app is connected to, as
the app's model sees them (``server__tool``, ``[server] description``), asked afresh at each
``tools/list``; their calls always go to the app (there is no server to run them here). stdin/
stdout carry the protocol, so nobody can be asked in this terminal:

- while Metona Tray runs, each call is forwarded to it over the instance socket
  (``desktop/instance/mcp_link.py``) and its Core runs it: a call that needs asking shows its
  card in the popup and a notification with Approve / Deny, like the app's own calls, and the chat,
  the journal and the audit log have one writer. ``--yes`` / ``--yes-all`` still approve what
  they allow without asking.
- when it does not run, this process runs the call on a Core of its own; a call that needs
  asking is approved only as far as the flags allow and is otherwise refused with a sentence
  saying so (the client's model reads it like any refusal). Reads never need asking.

Each process records its calls in a chat of its own ("MCP client"). The choice is made per
call, so opening the app while this runs moves the next call there.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import functools
import json
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tray_app.base.errors import MetonaError
from tray_app.base.events import ApprovalNeeded
from tray_app.base.paths import AppPaths
from tray_app.cli.mcp_serve_changes import WATCH_LOOK_S, ToolChanges, Watch
from tray_app.desktop.instance.instance import InstanceError, InstanceTimeout
from tray_app.desktop.instance.mcp_link import (
    POLL,
    SESSION_TITLE,
    AppGone,
    AppLink,
    AppRefused,
    client_flag,
)
from tray_app.desktop.instance.mcp_watch import AppWatch, Unsupported
from tray_app.i18n import section
from tray_app.tools.base import Risk, Tool

if TYPE_CHECKING:
    from tray_app.core.bootstrap import RunningApp
    from tray_app.core.service import Core
    from tray_app.store.settings import Settings

NOT_ASKED = (
    "{name} was not run: it needs approval and Metona Tray is not running to ask. Open Metona "
    "Tray to approve it there, or start `metona-tray mcp serve` with --yes to allow writes, or "
    "--yes-all for everything"
)
APP_GONE = (
    "{name}: Metona Tray quit before the call finished, so whether it ran is not known here; "
    "its chat 'MCP client' and `metona-tray changes` say"
)
APP_ONLY = (
    "{name} was not run: it is a tool of an MCP server Metona Tray is connected to, and only "
    "the running Metona Tray can run it; open Metona Tray and try again"
)
NO_ANSWER = (
    "{name} was not run: Metona Tray is running but did not answer in time (the machine may be "
    "busy); try again"
)


def annotations_for(risk: Risk, *, network: bool = False) -> dict[str, Any]:
    """What a client should know about a tool of this risk (MCP ``ToolAnnotations`` hints);
    ``network``: it reaches outside this machine (web_fetch)."""
    return {
        "readOnlyHint": risk is Risk.READ,
        "destructiveHint": risk in (Risk.DESTRUCTIVE, Risk.COMMAND),
        "openWorldHint": risk is Risk.COMMAND or network,
    }


def _tools(settings: Settings) -> list[Tool]:
    from tray_app.tools.registry import builtin_tools

    return [
        tool
        for tool in builtin_tools()
        if settings.tools_enabled
        and tool.name not in settings.disabled_tools
        and (settings.run_command_enabled or tool.risk is not Risk.COMMAND)
    ]


class LocalCalls:
    """The calls when no app runs: a Core of this process, started on the first such call,
    whose approvals the flags answer (in a thread of their own)."""

    def __init__(self, paths: AppPaths, args: argparse.Namespace) -> None:
        self.paths, self.args = paths, args
        self._lock = threading.Lock()
        self._app: RunningApp | None = None
        self._session_id = ""
        self._stop = threading.Event()

    def _core(self) -> tuple[Core, str]:
        from tray_app.core.bootstrap import start_app

        with self._lock:
            if self._app is None:
                app = start_app(self.paths, persist_settings=False, mcp="off")
                try:
                    session = app.core.new_session(workspace=self.args.workspace)
                    self._session_id = str(session["id"])
                    app.core.update_session(self._session_id, title=SESSION_TITLE)
                except BaseException:
                    app.close()
                    raise
                self._app = app
                threading.Thread(
                    target=self._decide, args=(app.core,), name="metona-mcp-serve", daemon=True
                ).start()
            return self._app.core, self._session_id

    def _decide(self, core: Core) -> None:
        """Nobody can be asked here: what the flags allow is never published (Core approves
        it), so whatever asks is refused."""
        with core.bus.subscribe(lambda e: isinstance(e, ApprovalNeeded)) as sub:
            while not self._stop.is_set():
                event = sub.get(timeout=POLL)
                if isinstance(event, ApprovalNeeded) and event.session_id == self._session_id:
                    core.decide(event.call_id, False, by="rule")

    def run(self, name: str, arguments: dict[str, Any], cancelled: threading.Event) -> Any:
        core, session_id = self._core()
        flag = client_flag(yes=self.args.yes, yes_all=self.args.yes_all)
        future = core.start_tool(session_id, name, arguments, client_flag=flag)
        while True:
            try:
                result = future.result(timeout=POLL)
                break
            except concurrent.futures.TimeoutError:
                if cancelled.is_set():
                    future.cancel()  # the client cancelled: the call stops like a stopped turn
                    return {"success": False, "error": f"{name} was cancelled"}
        denied = "was not run: the user denied"
        if isinstance(result, dict) and denied in str(result.get("error", "")):
            return {**result, "error": NOT_ASKED.format(name=name)}
        return result

    def close(self) -> None:
        self._stop.set()
        if self._app is not None:
            self._app.close()


class Calls:
    """Each call to the running app if there is one, else to ``LocalCalls``."""

    def __init__(self, paths: AppPaths, args: argparse.Namespace, language: str) -> None:
        workspace = str(Path(args.workspace).resolve()) if args.workspace else None
        self.link = AppLink(paths.runtime_dir, args.yes, args.yes_all, workspace)
        self.local = LocalCalls(paths, args)
        #: stderr, where the client's log shows it (``terminal.mcp_serve.*``)
        self.text = section("terminal.mcp_serve", language)
        self._mode = ""

    def say_mode(self, mode: str) -> None:
        """One line on stderr whenever who runs the calls changes (and at the start)."""
        if mode != self._mode:
            self._mode = mode
            print(self.text[mode], file=sys.stderr, flush=True)

    def app_tools(self) -> list[dict[str, Any]] | None:
        """The running app's MCP servers' tools: none when no app runs; None when it runs but
        did not answer in time (busy: what it offered last still holds)."""
        try:
            return self.link.tools()
        except InstanceTimeout:
            return None
        except InstanceError:
            return []

    def run(
        self,
        name: str,
        arguments: dict[str, Any],
        cancelled: threading.Event,
        *,
        app_only: bool = False,
    ) -> Any:
        """The call's result; ``app_only``: one of the app's MCP tools, which nothing here runs."""
        try:
            result = self.link.call(name, arguments, cancelled)
        except AppGone:
            self.say_mode("alone")
            return {"success": False, "error": APP_GONE.format(name=name)}
        except InstanceTimeout:  # it runs but is stuck: running the call here too could
            return {"success": False, "error": NO_ANSWER.format(name=name)}  # do it twice
        except AppRefused as exc:
            return {"success": False, "error": f"{name} was not run: Metona Tray said: {exc}"}
        except InstanceError:
            self.say_mode("alone")
            if app_only:
                return {"success": False, "error": APP_ONLY.format(name=name)}
            try:
                return self.local.run(name, arguments, cancelled)
            except MetonaError as exc:  # e.g. --workspace is outside the allowed folders
                return {"success": False, "error": f"{name} was not run: {exc}"}
        self.say_mode("app")
        return result


def run_serve(args: argparse.Namespace) -> int:
    from tray_app.i18n import resolve_language
    from tray_app.store.settings import load_settings

    paths = AppPaths.from_env()
    settings = load_settings(paths.settings_file)
    calls = Calls(paths, args, resolve_language(settings.language))
    calls.say_mode("app" if calls.link.running() else "alone")
    try:
        asyncio.run(_serve(calls, _tools(settings)))
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        print(f"metona-tray mcp serve: {exc}", file=sys.stderr)
        return 1
    finally:
        calls.local.close()
    return 0


async def _serve(calls: Calls, listed: list[Tool]) -> None:
    import mcp_types as types
    from mcp.server.lowlevel import NotificationOptions, Server
    from mcp.server.stdio import stdio_server

    tools = {tool.name: tool for tool in listed}
    changes = ToolChanges()
    app_tools: dict[str, dict[str, Any]] = {}  # the running app's MCP tools, as last listed
    # Calls wait for a person: more of them may wait at once than the default pool has threads.
    pool = concurrent.futures.ThreadPoolExecutor(32, thread_name_prefix="metona-mcp-call")

    async def ask_app_tools() -> list[dict[str, Any]]:
        """What the app offers now; what was last listed stays callable until listed again."""
        answer = await asyncio.get_running_loop().run_in_executor(pool, calls.app_tools)
        if answer is None:  # the app is busy: keep what it offered
            return list(app_tools.values())
        return [tool for tool in answer if tool["name"] not in tools]  # built-ins win

    async def refresh_app_tools() -> list[dict[str, Any]]:
        fresh = await ask_app_tools()
        app_tools.clear()
        app_tools.update((tool["name"], tool) for tool in fresh)
        return fresh

    async def list_tools(ctx: Any, _params: Any) -> types.ListToolsResult:
        offered = [
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tool.schema(),
                annotations=types.ToolAnnotations.model_validate(
                    annotations_for(tool.risk, network=tool.network)
                ),
            )
            for tool in tools.values()
        ]
        fresh = await refresh_app_tools()
        changes.listed(ctx, fresh)
        for tool in fresh:
            hints = annotations_for(Risk(tool["risk"]))
            try:
                offered.append(
                    types.Tool(
                        name=tool["name"],
                        description=tool["description"],
                        input_schema=tool["input_schema"],
                        annotations=types.ToolAnnotations.model_validate(hints),
                    )
                )
            except ValueError:  # pydantic's: one odd schema costs only its tool
                continue
        return types.ListToolsResult(tools=offered)

    async def call_tool(_ctx: Any, params: Any) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        if name not in tools and name not in app_tools:
            await refresh_app_tools()  # a client may call what it has not listed yet
        if name not in tools and name not in app_tools:
            text = f"unknown tool {name!r}"
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
        cancelled = threading.Event()
        loop = asyncio.get_running_loop()
        run = functools.partial(calls.run, app_only=name not in tools)
        try:
            result = await loop.run_in_executor(pool, run, name, arguments, cancelled)
        except asyncio.CancelledError:
            cancelled.set()  # the client cancelled: the call stops where it runs
            raise
        if not isinstance(result, dict):
            result = {"success": False, "error": f"{name} returned no result"}
        text = json.dumps(result, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(text=text)],
            structured_content=result,
            is_error=not result.get("success", False),
        )

    server: Server[Any] = Server(
        "metona-tray",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=changes.listen_handler,
    )
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))

    async def open_watch() -> AppWatch | None:
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, calls.link.watch)
        except (InstanceError, Unsupported):
            return None  # no app, or one from before mcp_watch: ask now and then

    async def wait(watch: Watch) -> str:
        return await asyncio.get_running_loop().run_in_executor(pool, watch.next, WATCH_LOOK_S)

    following = asyncio.ensure_future(changes.follow(ask_app_tools, open_watch, wait))
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, options)
    finally:
        following.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
