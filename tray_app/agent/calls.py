"""One tool call from the model's request to the tool message it gets back: check, preview,
ask, run.

Each call is recorded before anything happens to it and updated at every step (pending,
running, success/error/cancelled; ``call_recorder.CallRecorder``), so a card never loses its
state and a crash never loses a call's record. Failures of every kind become
``{"success": false, "error": ...}`` for the model, including a bug in the handling itself:
that call is answered, the log gets the traceback, and the loop goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from tray_app.agent.approval import ApprovalBroker, Outcome, can_remember, needs_confirmation
from tray_app.agent.call_recorder import CallRecorder
from tray_app.agent.call_results import (
    denied_by_rule,
    not_run,
    refused,
    refused_read_only,
    tools_disabled,
)
from tray_app.agent.guards import (
    REPEAT_LIMIT,
    REPEATED,
    Cost,
    TurnGuards,
    budget_text,
    call_key,
    cost_of,
)
from tray_app.agent.progress import progress_reporter
from tray_app.agent.vouched_urls import vouched
from tray_app.base.errors import StoreError
from tray_app.base.events import ApprovalNeeded, ClientFlag, Publish
from tray_app.base.messages import (
    AnyPreview,
    ErrorPreview,
    ToolCall,
    ToolCallRecord,
    ToolStatus,
    preview_json,
    with_facts,
)
from tray_app.store.records import ChatRepository, MessageRecord
from tray_app.tool_errors import ToolErrorCode
from tray_app.tools.base import Risk
from tray_app.tools.result import ToolResult, failure
from tray_app.tools.rule_paths import call_paths, named_paths, rule_folder
from tray_app.tools.tool_rules import RuleBook, Verdict
from tray_app.tools.toolbox import CheckedCall, Toolbox

log = logging.getLogger(__name__)

TOOL_STOP_GRACE = 5.0  # seconds a cancelled tool gets to clean up (kill its process tree)
MAX_APPROVAL_ROUNDS = 5  # a target that keeps changing after each approval is given up on


class CallHandler:
    """Decides what happens to each tool call of one turn; ``records`` writes it down."""

    def __init__(
        self,
        *,
        session_id: str,
        turn_id: str,
        toolbox: Toolbox | None,
        broker: ApprovalBroker,
        chats: ChatRepository,
        publish: Publish,
        confirmation_mode: str,
        on_tool_record: Callable[[ToolCallRecord], None] | None = None,
        guards: TurnGuards | None = None,
        on_message: Callable[[MessageRecord], None] | None = None,
        result_room: Callable[[], int | None] | None = None,
        client_flag: ClientFlag | None = None,
        rules: Callable[[], RuleBook] | None = None,
    ) -> None:
        #: The lasting rules in force (read at each call: one made from a card applies to the
        #: very next call); None: no rules.
        self.rules = rules
        #: This turn's answers by identical call: asked again, the earlier answer stands.
        self.answers: dict[str, Outcome] = {}
        #: ``mcp serve``'s flag for a call its client started (``approval.flag_allows``);
        #: None for the app's own turns, which no flag ever widens.
        self.client_flag = client_flag
        #: The characters of JSON a tool result may take (the limit and the context left).
        self.result_room = result_room
        self.guards = guards if guards is not None else TurnGuards()
        self.session_id = session_id
        self.toolbox = toolbox
        self.broker = broker
        self.publish = publish
        self.confirmation_mode = confirmation_mode
        #: A tool that can change something (anything but a read) started running this turn.
        self.ran_a_change = False
        self.records = CallRecorder(
            session_id=session_id,
            turn_id=turn_id,
            chats=chats,
            publish=publish,
            on_tool_record=on_tool_record,
            on_message=on_message,
        )

    async def skip(
        self,
        call: ToolCall,
        message_id: str,
        reason: str,
        code: ToolErrorCode,
        params: dict[str, Any] | None = None,
    ) -> None:
        """Answer a call without running it (a round limit, or the repeat guard); ``code`` and
        ``params`` let the card and the terminal say ``reason`` in the user's language."""
        record = self.records.new_record(call, message_id)
        self.records.announce(record, "pending")
        result = failure(reason, code=code, params=params)
        self.records.close(record, "cancelled", result, decision="skipped", decided_by="rule")

    async def handle(self, call: ToolCall, message_id: str) -> None:
        """Validate, check, ask if needed, run; the model always gets one answer."""
        if self.guards.repeated(call.name, call.arguments):
            await self.skip(call, message_id, REPEATED, "repeated", {"n": REPEAT_LIMIT})
            return
        record = self.records.new_record(call, message_id)
        try:
            await self._handle(call, record)
        except (asyncio.CancelledError, StoreError):
            raise
        except Exception as exc:  # a bug: answer this call, keep the turn going
            log.exception("handling tool call %s (%s) failed", record.call_id, call.name)
            if self.records.answered(record):
                return
            if not self.records.announced(record):
                self.records.announce(record, "pending")
            result = failure(
                f"{call.name} failed inside the app ({type(exc).__name__}); "
                "the details are in the app's log file",
                code="failed_inside_app",
                params={"tool": call.name, "error": type(exc).__name__},
            )
            self.records.close(record, "error", result)

    async def _vouched(self, url: str) -> bool:
        """The person wrote ``url`` in one of their messages in this chat."""

        def wrote() -> bool:
            messages = self.records.chats.messages(self.session_id)
            return vouched(url, (m.content for m in messages if m.role == "user"))

        return await asyncio.to_thread(wrote)

    async def _handle(self, call: ToolCall, record: ToolCallRecord) -> None:
        toolbox = self.toolbox
        checked = self._check(call)
        if not isinstance(checked, CheckedCall) or toolbox is None:
            self.records.announce(record, "pending")
            result = checked if not isinstance(checked, CheckedCall) else tools_disabled()
            self.records.close(record, "error", result, decision="refused", decided_by="rule")
            return
        # Validated once: the same parsed arguments go to every preview and to the run.
        tool = checked.tool
        record.risk = tool.risk.value
        paths = self._paths(toolbox, checked)
        verdict = self._verdict(checked, paths)
        if verdict is not None and verdict.action == "deny":
            self.records.announce(record, "pending")
            result = denied_by_rule(call.name, verdict.rule.folder)
            self.records.close(record, "cancelled", result, decision="denied", decided_by="rule")
            return
        if self.confirmation_mode == "read_only" and tool.risk is not Risk.READ:
            self.records.announce(record, "pending")
            result = refused_read_only(call.name)
            self.records.close(record, "error", result, decision="refused", decided_by="rule")
            return
        preview = await toolbox.preview_async(checked)
        preview, cost, over = self._budget(tool.risk, preview)
        record.preview = preview_json(preview)
        self.records.announce(record, "pending")
        if isinstance(preview, ErrorPreview):
            result = refused(call.name, preview)
            self.records.close(record, "error", result, decision="refused", decided_by="rule")
            return
        ask = over or needs_confirmation(
            risk=tool.risk,
            asks_when_exists=tool.asks_when_exists,
            mode=self.confirmation_mode,
            preview=preview,
            granted=self.broker.granted(self.session_id, call.name),
            unvouched_url=preview.url is not None and not await self._vouched(preview.url),
        )
        if verdict is not None:
            ask = over or _rule_asks(verdict, tool.risk, preview, ask)
        offered = rule_folder(paths, str(toolbox.policy.workspace))
        can_rule = offered is not None or not paths  # None with paths: only the root holds them
        if not ask:
            # Unasked (full auto, a grant or a rule): still bound to the previewed target, so a
            # file that changes between the preview and the tool's read is not written.
            record.decision, record.decided_by = "approved", "rule"
            if await self._run(record, toolbox, checked, cost, rebind=preview.binding is not None):
                return
            shown = await self._reshow(record, toolbox, checked, preview)
            if shown is None:
                return
            preview, cost = shown
        for _ in range(MAX_APPROVAL_ROUNDS):
            if not await self._ask(
                call, record, tool.risk, preview, offered, over=over, can_rule=can_rule
            ):
                return
            if preview.binding is None:
                await self._run(record, toolbox, checked, cost)
                return
            # Bound to what was shown: the target is checked again just before the call runs.
            fresh: AnyPreview | None = await toolbox.preview_async(checked)
            if fresh is not None and fresh.binding == preview.binding:
                if await self._run(record, toolbox, checked, cost, rebind=True):
                    return
                # The tool found another target than the approved one (it changed in the
                # moment between this check and the tool's own read): nothing was changed.
                fresh = None
            shown = await self._reshow(record, toolbox, checked, preview, fresh)
            if shown is None:
                return
            preview, cost = shown
        result = failure(
            f"{call.name} was not run: its target kept changing after each approval "
            f"({MAX_APPROVAL_ROUNDS} times)",
            code="target_kept_changing",
            params={"n": MAX_APPROVAL_ROUNDS},
        )
        self.records.close(record, "error", result, decision="refused", decided_by="rule")

    async def _reshow(
        self,
        record: ToolCallRecord,
        toolbox: Toolbox,
        checked: CheckedCall,
        shown: AnyPreview,
        fresh: AnyPreview | None = None,
    ) -> tuple[AnyPreview, Cost] | None:
        """The target changed after ``shown``: the new preview for the card and the next
        question, or None when the call was answered (it cannot be done any more)."""
        call, risk = record.name, checked.tool.risk
        if fresh is None:
            fresh = await toolbox.preview_async(checked)
        if isinstance(fresh, ErrorPreview):
            why = fresh.text or "it cannot be done any more"
            result = failure(
                f"{call} was not run: its target changed after the user approved it ({why})",
                code="target_changed",
            )
            self.records.close(record, "error", result, decision="refused", decided_by="rule")
            return None
        fresh = with_facts(
            fresh, changed_since_shown=True, approval_round=(shown.approval_round or 1) + 1
        )
        preview, cost, _ = self._budget(risk, fresh)
        record.preview = preview_json(preview)
        self.records.announce(record, "pending")  # the card shows the new diff
        return preview, cost

    def _budget(self, risk: Risk, preview: AnyPreview) -> tuple[AnyPreview, Cost, bool]:
        """The call's cost, and the preview naming the budget it would go past (if any)."""
        if isinstance(preview, ErrorPreview):
            return preview, Cost(), False
        cost = cost_of(risk.value, preview)
        over = self.guards.over_budget(cost)
        if over is None:
            return (with_facts(preview, budget=None) if preview.budget else preview), cost, False
        return with_facts(preview, budget={**over, "text": budget_text(over)}), cost, True

    def _paths(self, toolbox: Toolbox, checked: CheckedCall) -> list[str]:
        """The paths a built-in call names, literal and real (an MCP tool's are unknown)."""
        if checked.tool.origin != "builtin":
            return []
        raw = named_paths(checked.args, default_cwd=checked.tool.risk is Risk.COMMAND)
        return call_paths(raw, str(toolbox.policy.workspace))

    def _verdict(self, checked: CheckedCall, paths: list[str]) -> Verdict | None:
        if self.rules is None:
            return None
        return self.rules().decide(checked.name, checked.tool.origin, paths)

    async def _ask(
        self,
        call: ToolCall,
        record: ToolCallRecord,
        risk: Risk,
        preview: AnyPreview,
        offered: str | None = None,
        *,
        over: bool = False,
        can_rule: bool = True,
    ) -> bool:
        """One approval round; False when the call was answered without running. The same
        call asked again in this turn gets the earlier answer (unless a budget now asks)."""
        key = call_key(call.name, call.arguments)
        earlier = self.answers.get(key)
        try:
            if earlier is not None and not over and preview.changed_since_shown is not True:
                outcome = earlier
            else:
                outcome = await self.broker.request(
                    ApprovalNeeded(
                        session_id=self.session_id,
                        call_id=record.call_id,
                        name=call.name,
                        arguments=call.arguments,
                        risk=risk.value,
                        preview=preview_json(preview),
                        can_remember=can_remember(risk),
                        expires_at=time.time() + self.broker.timeout,
                        rule_folder=offered,
                        can_rule=can_rule,
                    ),
                    client_flag=self.client_flag,
                )
        except asyncio.CancelledError:
            result = failure("cancelled: the user stopped the turn", code="stopped")
            self.records.close(
                record, "cancelled", result, decision="cancelled", decided_by="abort"
            )
            raise
        record.decision, record.decided_by = outcome.decision, outcome.by
        if outcome.decision in ("approved", "denied", "timeout"):
            self.answers[key] = outcome
        if outcome.decision == "approved":
            return True
        self.records.close(record, "cancelled", not_run(call.name, outcome.decision))
        return False

    def _check(self, call: ToolCall) -> CheckedCall | ToolResult:
        """The call checked once (known, enabled, arguments parsed), or why it cannot run."""
        if call.arguments_error:
            return failure(
                f"invalid arguments for {call.name}: {call.arguments_error}",
                code="invalid_arguments",
                params={"tool": call.name, "detail": call.arguments_error},
            )
        if self.toolbox is None:
            return tools_disabled()
        return self.toolbox.check(call.name, call.arguments)

    async def _run(
        self,
        record: ToolCallRecord,
        toolbox: Toolbox,
        checked: CheckedCall,
        cost: Cost,
        *,
        rebind: bool = False,
    ) -> bool:
        """Run and answer the call; with ``rebind``, False (and no answer yet) when the tool
        refused because its target is not the one the user approved: ask again."""
        self.records.update(record, "running")
        if record.risk != Risk.READ.value:
            self.ran_a_change = True
        # Asked or not, the tool checks once more that its target is what was previewed.
        binding = (record.preview or {}).get("binding")
        bound = binding if isinstance(binding, dict) else None
        cancel = threading.Event()
        started = time.monotonic()
        job = asyncio.ensure_future(
            toolbox.run_async(
                checked,
                call_id=record.call_id,
                cancel=cancel,
                bound=bound,
                progress=progress_reporter(self.publish, self.session_id, record),
                result_chars=self.result_room() if self.result_room is not None else None,
            )
        )
        try:
            result = await asyncio.shield(job)
        except asyncio.CancelledError:
            cancel.set()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(job), TOOL_STOP_GRACE)
            done = job.done() and not job.cancelled() and job.exception() is None
            if done and job.result().get("success"):
                # It finished all the same (a write cannot be stopped halfway): its result is
                # the truth, not "cancelled", or the model and the card would deny a change.
                self._finish(record, toolbox, job.result(), started, cost)
                raise
            note = "" if job.done() else "; it was still running and may yet finish"
            result = failure(
                f"cancelled: the user stopped the turn{note}",
                code="stopped_running" if note else "stopped",
            )
            took = round((time.monotonic() - started) * 1000, 1)
            self.records.close(record, "cancelled", result, duration_ms=took)
            raise
        if rebind and result.get("changed_since_approval"):
            return False
        self._finish(record, toolbox, result, started, cost)
        return True

    def _finish(
        self,
        record: ToolCallRecord,
        toolbox: Toolbox,
        result: ToolResult,
        started: float,
        cost: Cost,
    ) -> None:
        duration = round((time.monotonic() - started) * 1000, 1)
        if result.get("cancelled"):
            status: ToolStatus = "cancelled"
        else:
            status = "success" if result.get("success") else "error"
        undoable = bool(
            status == "success"
            and record.risk in (Risk.WRITE.value, Risk.DESTRUCTIVE.value)
            and (journal := toolbox.journal) is not None
            and journal.can_undo(record.call_id)
        )
        if status == "success":  # the budgets count what really happened
            self.guards.charge(cost)
        self.records.close(record, status, result, duration_ms=duration, undoable=undoable)


def _rule_asks(verdict: Verdict, risk: Risk, preview: AnyPreview, mode_asks: bool) -> bool:
    """Whether a call a rule covers still asks. An ask rule always asks. An allow rule never
    covers a target that makes something run later, a command the blacklist flags, or a
    command unless the rule names run_command itself (a server-wide rule never does)."""
    if verdict.action == "ask":
        return True
    facts = preview_json(preview)
    if preview.changes is False and risk is not Risk.COMMAND:
        return mode_asks
    if facts.get("persistence") or facts.get("blocked"):
        return True
    return risk is Risk.COMMAND and verdict.rule.tool != "run_command"
