"""The enabled tools of one turn, bound to its sandbox policy and undo journal.

A call is checked once (``check``: known, enabled, arguments parsed into the args model) and the
same parsed model then goes to the preview and to the run, however many times the preview is
made again. Previews come back typed (``messages.Preview``, a pydantic union on ``kind``).
Nothing here raises for a tool failure: invalid arguments, an unknown or disabled
tool, a sandbox violation or an OS error all come back as ``{"success": False, "error": ...}``
for the model (docs/architecture.md §3); a preview that fails becomes ``kind: error``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, ValidationError

from tray_app.base.messages import AnyPreview, ErrorPreview, NoPreview, parse_preview, preview_json
from tray_app.tool_errors import CodedError
from tray_app.tools.arg_errors import invalid_arguments
from tray_app.tools.base import (
    AsyncHandler,
    Handler,
    ProgressFn,
    Risk,
    Tool,
    ToolContext,
    parse_arguments,
    validate_args,
)
from tray_app.tools.fit import fit_result, json_chars
from tray_app.tools.fs.fs_safe import os_error_code
from tray_app.tools.full_results import FullResults
from tray_app.tools.registry import ToolRegistry, default_registry
from tray_app.tools.result import ToolResult, coded_failure, failure

if TYPE_CHECKING:
    from tray_app.tools.journal.journal import Journal
    from tray_app.tools.sandbox.policy import SandboxPolicy

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckedCall:
    """A call whose arguments were validated, once: what the preview and the run receive."""

    tool: Tool
    args: BaseModel

    @property
    def name(self) -> str:
        return self.tool.name


class Toolbox:
    """The enabled tools bound to one sandbox policy (and, for undo, a journal)."""

    def __init__(
        self,
        policy: SandboxPolicy,
        enabled: Iterable[str] | None = None,
        *,
        registry: ToolRegistry | None = None,
        journal: Journal | Callable[[], Journal] | None = None,
        undo_optional: bool = False,
    ) -> None:
        self.policy = policy
        self.registry = registry if registry is not None else default_registry()
        #: The undo journal, or what opens it when a call first needs it: a chat whose model
        #: calls no tool never imports or opens it (start-up).
        self._journal = journal
        self.undo_optional = undo_optional
        names = self.registry.names()
        self.enabled = set(names) if enabled is None else set(enabled) & set(names)
        #: Where a result shortened for the model is kept whole for the user (Core's keeper).
        self.full_results: FullResults | None = None

    @property
    def journal(self) -> Journal | None:
        if callable(self._journal):
            self._journal = self._journal()
        return self._journal

    def definitions(self) -> list[dict[str, Any]]:
        return [tool.definition() for tool in self.registry if tool.name in self.enabled]

    def tool(self, name: str) -> Tool | None:
        return self.registry.get(name)

    def is_enabled(self, name: str) -> bool:
        return name in self.enabled and self.registry.get(name) is not None

    # -- checking, once -----------------------------------------------------------------------

    def check(self, name: str, args: Mapping[str, Any] | str | None) -> CheckedCall | ToolResult:
        """The call with its parsed arguments, or the failure saying why it cannot run."""
        tool = self.registry.get(name) if isinstance(name, str) else None
        if tool is None:
            return failure(f"unknown tool {name!r}", code="unknown_tool", params={"name": name})
        if name not in self.enabled:
            return failure(
                f"tool {name!r} is not enabled", code="tool_not_enabled", params={"name": name}
            )
        try:
            return CheckedCall(tool, validate_args(tool.args_model, parse_arguments(args)))
        except ValidationError as exc:
            return invalid_arguments(name, exc)
        except RecursionError:  # json.loads of "[[[[..." nested thousands deep
            detail = "the JSON is nested too deeply"
        except Exception as exc:  # whatever the model sent, the call must be answered
            detail = f"{type(exc).__name__}: {exc}"
        return failure(
            f"invalid arguments for {name}: {detail}",
            code="invalid_arguments",
            params={"tool": name, "detail": detail},
        )

    def validate(self, name: str, args: Mapping[str, Any] | str | None) -> BaseModel | str:
        """The parsed arguments, or a sentence saying why the call cannot run."""
        checked = self.check(name, args)
        return checked.args if isinstance(checked, CheckedCall) else str(checked["error"])

    # -- previews -----------------------------------------------------------------------------

    def preview_checked(
        self, call: CheckedCall, cancel: threading.Event | None = None
    ) -> AnyPreview:
        """What a confirmation shows, typed; never raises (a problem becomes ``kind: error``).
        ``cancel`` is the preview's ``ctx.cancel``: a long preview stops when it is set."""
        tool, name = call.tool, call.name
        if tool.preview is None:
            return NoPreview(tool=name, kind="none", text="")
        context = self._context(tool, cancel=cancel)
        show = tool.preview
        result = self._guard(name, lambda: show(context, call.args))
        if result.get("success") is False:
            text = str(result.get("error", ""))
            return ErrorPreview(tool=name, kind="error", text=text, **_page_of(result))
        if tool.risk is not Risk.READ and "persistence" not in result:
            warning = self._persistence(result)
            if warning is not None:
                result = {**result, "persistence": warning}
        try:
            return parse_preview({"tool": name, **result})
        except ValidationError as exc:  # a tool's bug: refuse the call, keep the turn
            log.error("tool %s made a preview of the wrong shape: %s", name, exc)
            text = f"{name} failed unexpectedly: its preview is not valid"
            params = {"tool": name, "detail": "its preview is not valid"}
            return ErrorPreview(
                tool=name, kind="error", text=text, code="failed_unexpectedly", params=params
            )

    async def preview_async(self, call: CheckedCall) -> AnyPreview:
        """``preview_checked`` in a worker thread (previews read the disk); cancelling the
        awaiting task (the user stopped the turn) tells the preview to stop too."""
        cancel = threading.Event()
        try:
            return await asyncio.to_thread(self.preview_checked, call, cancel)
        except asyncio.CancelledError:
            cancel.set()
            raise

    def preview(self, name: str, args: Mapping[str, Any] | str | None) -> dict[str, Any]:
        """Check and preview in one step, as the JSON the page receives (tests, benches)."""
        checked = self.check(name, args)
        if not isinstance(checked, CheckedCall):
            return {"tool": name, "kind": "error", "text": checked["error"], **_page_of(checked)}
        return preview_json(self.preview_checked(checked))

    # -- running ------------------------------------------------------------------------------

    def run_checked(
        self,
        call: CheckedCall,
        *,
        call_id: str | None = None,
        cancel: threading.Event | None = None,
        bound: Mapping[str, Any] | None = None,
        progress: ProgressFn | None = None,
        result_chars: int | None = None,
    ) -> ToolResult:
        """Run a checked call. Blocking: the agent loop calls this in a worker thread. An
        asynchronous handler gets an event loop of its own here (tests, the terminal). With
        ``result_chars`` the result's JSON fits that many characters, whole."""
        context = self._context(
            call.tool,
            call_id=call_id,
            cancel=cancel,
            bound=bound,
            progress=progress,
            result_chars=result_chars,
        )
        if call.tool.is_async:
            run_async = cast("AsyncHandler", call.tool.handler)
            result = self._guard(
                call.name, lambda: asyncio.run(_awaited(run_async(context, call.args)))
            )
        else:
            handler = cast("Handler", call.tool.handler)
            result = self._guard(call.name, lambda: handler(context, call.args))
            if result_chars is not None and call.tool.risk is Risk.READ and _sized(result):
                result = self._keep_whole(call.name, handler, context, call.args, result, call_id)
        return self._fitted(result, result_chars, call_id)

    def _keep_whole(
        self,
        name: str,
        handler: Handler,
        context: ToolContext,
        args: BaseModel,
        result: ToolResult,
        call_id: str | None,
    ) -> ToolResult:
        """A read that sized itself to the model's room is read once more without it (within
        the tool's own caps), kept for the card's "Show all" when that is more."""
        keeper = self.full_results
        if keeper is None or not call_id:
            return result
        whole = self._guard(name, lambda: handler(replace(context, result_chars=None), args))
        if json_chars(whole) <= json_chars(result) or not keeper.keep(call_id, whole):
            return result
        return {**result, "card_full": True}

    async def run_async(
        self,
        call: CheckedCall,
        *,
        call_id: str | None = None,
        cancel: threading.Event | None = None,
        bound: Mapping[str, Any] | None = None,
        progress: ProgressFn | None = None,
        result_chars: int | None = None,
    ) -> ToolResult:
        """Run a checked call from the core loop: an asynchronous handler is awaited there,
        a blocking one runs in a worker thread."""
        if not call.tool.is_async:
            return await asyncio.to_thread(
                self.run_checked,
                call,
                call_id=call_id,
                cancel=cancel,
                bound=bound,
                progress=progress,
                result_chars=result_chars,
            )
        context = self._context(
            call.tool,
            call_id=call_id,
            cancel=cancel,
            bound=bound,
            progress=progress,
            result_chars=result_chars,
        )
        run = cast("AsyncHandler", call.tool.handler)
        try:
            result = await run(context, call.args)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the same sentences as a blocking tool's failures
            result = self._guard(call.name, _raiser(exc))
        return await asyncio.to_thread(self._fitted, result, result_chars, call_id)

    def execute(
        self,
        name: str,
        args: Mapping[str, Any] | str | None,
        *,
        call_id: str | None = None,
        cancel: threading.Event | None = None,
        bound: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Check and run in one step (tests, the red-team corpus). Blocking."""
        checked = self.check(name, args)
        if not isinstance(checked, CheckedCall):
            return checked
        return self.run_checked(checked, call_id=call_id, cancel=cancel, bound=bound)

    # -- helpers ------------------------------------------------------------------------------

    def _context(
        self,
        tool: Tool,
        *,
        call_id: str | None = None,
        cancel: threading.Event | None = None,
        bound: Mapping[str, Any] | None = None,
        progress: ProgressFn | None = None,
        result_chars: int | None = None,
    ) -> ToolContext:
        return ToolContext(
            policy=self.policy,
            journal=self.journal,
            cancel=cancel or threading.Event(),
            call_id=call_id,
            undo_optional=self.undo_optional,
            bound=bound,
            shallow_undo=tool.shallow_undo,
            progress=progress,
            result_chars=result_chars,
        )

    def _persistence(self, preview: Mapping[str, Any]) -> dict[str, str] | None:
        """The warning for a change that makes something run later (login, VS Code, git)."""
        for key in ("path", "destination"):
            value = preview.get(key)
            if isinstance(value, str) and value:
                found = self.policy.persistence_risk(Path(value))
                if found is not None:
                    return {**found, "path": value}
        return None

    @staticmethod
    def _guard(name: str, run: Callable[[], ToolResult]) -> ToolResult:
        try:
            return run()
        except CodedError as exc:  # a sandbox refusal, no undo copy, an unreadable file...
            return coded_failure(exc)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            message = f"{name} failed{where}: {exc.strerror or exc}"
            if not exc.filename:  # no path to name: the tool and the system's words
                params = {"path": name, "reason": str(exc.strerror or exc)}
                return failure(message, code="os_error", params=params)
            code, found = os_error_code(exc, "")
            return failure(message, code=code, params=found)
        except Exception as exc:  # a bug must not end the turn; it is logged in full
            log.exception("tool %s crashed", name)
            detail = f"{type(exc).__name__}: {exc}"
            return failure(
                f"{name} failed unexpectedly: {detail}",
                code="failed_unexpectedly",
                params={"tool": name, "detail": detail},
            )

    def _fitted(self, result: ToolResult, limit: int | None, call_id: str | None) -> ToolResult:
        """The result the model may receive; a shortened one is kept whole for the card."""
        if limit is None:
            return result
        fitted = fit_result(result, limit)
        keeper = self.full_results
        if fitted is not result and call_id and keeper is not None and keeper.keep(call_id, result):
            fitted = {**fitted, "card_full": True}  # the card offers "Show all"
        return fitted


def _page_of(result: Mapping[str, Any]) -> dict[str, Any]:
    """A failure's ``code`` and ``params``, for an error preview (the card translates it)."""
    return {key: result[key] for key in ("code", "params") if key in result}


#: What a tool that sizes itself says when it left something out for the room.
_SIZED_KEYS = ("entries_omitted", "results_omitted", "matches_omitted", "partial_line")


def _sized(result: ToolResult) -> bool:
    if any(result.get(key) for key in _SIZED_KEYS):
        return True
    return bool(result.get("truncated") and result.get("next_start_line"))


async def _awaited(value: Awaitable[ToolResult]) -> ToolResult:
    return await value


def _raiser(exc: Exception) -> Callable[[], ToolResult]:
    def run() -> ToolResult:
        raise exc

    return run
