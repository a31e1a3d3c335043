"""One agent turn: rounds of request -> stream -> tool calls, until the model stops calling tools.

The loop is UI-agnostic. It reads and writes the conversation through a ``ChatRepository``,
publishes events, and awaits a decision from the ``ApprovalBroker`` for every call that needs
one. Cancelling the task that runs ``AgentTurn.run`` is the abort: the HTTP stream closes at
once, pending approvals are cancelled, a running command is told to stop, and what streamed so
far is kept and marked stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tray_app.agent.approval import ApprovalBroker, can_remember, needs_confirmation
from tray_app.agent.context import fit_history
from tray_app.agent.prompts import build_system_prompt
from tray_app.core.events import (
    ApprovalNeeded,
    ContentDelta,
    MessageFinished,
    MessageStarted,
    Notice,
    ThinkingDelta,
    ToolCallEvent,
    ToolCallUpdate,
    ToolStatus,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from tray_app.errors import (
    CapabilityError,
    ModelNotFound,
    ProviderError,
    ProviderUnavailable,
    StreamError,
)
from tray_app.providers.base import (
    ChatMessage,
    ChatRequest,
    ModelInfo,
    Provider,
    StreamDelta,
    StreamDone,
    ToolCall,
)
from tray_app.store.records import ChatRepository, MessageRecord, ToolCallRecord, new_id
from tray_app.tools.base import Risk, Toolbox, failure

SAVE_INTERVAL = 1.0  # seconds between saves of a streaming answer ("nothing lost")
TOOL_STOP_GRACE = 5.0  # seconds a cancelled tool gets to clean up (kill its process tree)


@dataclass(frozen=True)
class TurnConfig:
    model: str
    think: bool = True
    temperature: float = 0.7
    num_ctx: int = 24576
    keep_alive: str | None = "5m"
    max_rounds: int = 10
    tools_enabled: bool = True
    confirmation_mode: str = "all_writes"
    language: str = "en"
    system_prompt: str = ""
    tool_result_limit: int = 16_000


def error_code(exc: ProviderError) -> str:
    if isinstance(exc, ProviderUnavailable):
        return "provider_unavailable"
    if isinstance(exc, ModelNotFound):
        return "model_not_found"
    if isinstance(exc, CapabilityError):
        return "capability"
    if isinstance(exc, StreamError):
        return "stream_error"
    return "provider_error"


class AgentTurn:
    def __init__(
        self,
        *,
        session_id: str,
        turn_id: str,
        provider: Provider,
        toolbox: Toolbox | None,
        broker: ApprovalBroker,
        chats: ChatRepository,
        publish: Callable[[BaseModel], None],
        config: TurnConfig,
        workspace: str | None = None,
        on_tool_record: Callable[[ToolCallRecord], None] | None = None,
    ) -> None:
        self.session_id = session_id
        self.turn_id = turn_id
        self.provider = provider
        self.toolbox = toolbox
        self.broker = broker
        self.chats = chats
        self.publish = publish
        self.config = config
        self.workspace = workspace
        self.on_tool_record = on_tool_record
        self.rounds = 0
        self.totals: dict[str, float] = {"prompt_tokens": 0, "completion_tokens": 0}
        self._message: MessageRecord | None = None
        self._last_save = 0.0

    # ---- the turn ---------------------------------------------------------------------------

    async def run(self) -> str:
        """Run to the end; returns the stop reason ("done", "max_rounds", "aborted", "failed")."""
        started = time.monotonic()
        try:
            info = await self.provider.model_info(self.config.model)
            tools = self._tool_definitions(info)
            self.publish(
                TurnStarted(
                    session_id=self.session_id,
                    turn_id=self.turn_id,
                    model=self.config.model,
                    tools_enabled=bool(tools),
                )
            )
            reason = await self._rounds(info, tools)
        except asyncio.CancelledError:
            self._finish_message(stopped=True)
            self._finish("aborted", started)
            return "aborted"
        except ProviderError as exc:
            self._finish_message(stopped=True, error=str(exc))
            self.publish(
                TurnFailed(
                    session_id=self.session_id,
                    turn_id=self.turn_id,
                    code=error_code(exc),
                    message=str(exc),
                )
            )
            return "failed"
        self._finish(reason, started)
        return reason

    def _finish(self, reason: str, started: float) -> None:
        stats = {**self.totals, "duration_ms": round((time.monotonic() - started) * 1000)}
        self.publish(
            TurnFinished(
                session_id=self.session_id,
                turn_id=self.turn_id,
                stop_reason=reason,  # type: ignore[arg-type]
                rounds=self.rounds,
                stats=stats,
            )
        )

    def _tool_definitions(self, info: ModelInfo) -> list[dict[str, Any]] | None:
        if not self.config.tools_enabled or self.toolbox is None:
            return None
        definitions = self.toolbox.definitions()
        if not definitions:
            return None
        if not info.supports("tools"):
            self.publish(
                Notice(
                    session_id=self.session_id,
                    turn_id=self.turn_id,
                    level="warning",
                    code="tools_unsupported",
                    message=(
                        f"{self.config.model} cannot call tools, so this is a plain chat: "
                        "it cannot read or change files. Pick a model with the tools badge "
                        "to let it work on files."
                    ),
                )
            )
            return None
        return definitions

    async def _rounds(self, info: ModelInfo, tools: list[dict[str, Any]] | None) -> str:
        think = self.config.think if info.supports("thinking") else None
        vision = info.supports("vision")
        for round_no in range(1, self.config.max_rounds + 1):
            self.rounds = round_no
            request = ChatRequest(
                model=self.config.model,
                messages=self._history(tools_enabled=bool(tools), vision=vision),
                tools=tools,
                think=think,
                temperature=self.config.temperature,
                num_ctx=self.config.num_ctx,
                keep_alive=self.config.keep_alive,
            )
            calls = await self._stream(request, round_no)
            if not calls:
                return "done"
            last_round = round_no == self.config.max_rounds
            for call in calls:
                if last_round:
                    await self._skip_call(call, "not run: the round limit was reached")
                else:
                    await self._handle_call(call)
        self.publish(
            Notice(
                session_id=self.session_id,
                turn_id=self.turn_id,
                level="warning",
                code="max_rounds",
                message=(
                    f"Stopped after {self.config.max_rounds} rounds of tool calls "
                    "(the limit in settings). Send a message to let the model continue."
                ),
            )
        )
        return "max_rounds"

    # ---- history ----------------------------------------------------------------------------

    def _history(self, *, tools_enabled: bool, vision: bool) -> list[ChatMessage]:
        records = self.chats.messages(self.session_id)
        turn_start = next(
            (i for i, m in enumerate(records) if m.turn_id == self.turn_id), len(records)
        )
        # An answer that failed or was stopped before saying anything is not sent back.
        def useful(record: MessageRecord) -> bool:
            return record.role != "assistant" or bool(record.content or record.tool_calls)

        earlier = [r.to_chat_message() for r in records[:turn_start] if useful(r)]
        current = [r.to_chat_message() for r in records[turn_start:] if useful(r)]
        if not vision:
            earlier = [m.model_copy(update={"images": []}) if m.images else m for m in earlier]
            current = [m.model_copy(update={"images": []}) if m.images else m for m in current]
        prompt = build_system_prompt(
            self.config.system_prompt,
            tools_enabled=tools_enabled,
            language=self.config.language,
            workspace=self.workspace,
        )
        system = ChatMessage(role="system", content=prompt) if prompt else None
        return fit_history(
            system,
            earlier,
            current,
            num_ctx=self.config.num_ctx,
            tool_result_limit=self.config.tool_result_limit,
        )

    # ---- streaming --------------------------------------------------------------------------

    async def _stream(self, request: ChatRequest, round_no: int) -> list[ToolCall]:
        message = MessageRecord(
            session_id=self.session_id,
            turn_id=self.turn_id,
            role="assistant",
            model=self.config.model,
            stats={"streaming": True},
        )
        self.chats.add_message(message)
        self._message = message
        self._last_save = time.monotonic()
        self.publish(
            MessageStarted(
                session_id=self.session_id,
                turn_id=self.turn_id,
                message_id=message.id,
                round=round_no,
                model=self.config.model,
            )
        )
        done: StreamDone | None = None
        async for item in self.provider.chat(request):
            if isinstance(item, StreamDelta):
                if item.kind == "thinking":
                    message.thinking += item.text
                    self.publish(
                        ThinkingDelta(
                            session_id=self.session_id, message_id=message.id, text=item.text
                        )
                    )
                else:
                    message.content += item.text
                    self.publish(
                        ContentDelta(
                            session_id=self.session_id, message_id=message.id, text=item.text
                        )
                    )
                self._save_if_due()
            else:
                done = item
        if done is None:
            raise StreamError("the answer ended before the server said it was done")
        stats = done.stats.model_dump(exclude_none=True)
        for key in ("prompt_tokens", "completion_tokens"):
            self.totals[key] += stats.get(key, 0)
        message.tool_calls = done.tool_calls
        message.stats = stats
        self.chats.update_message(
            message.id,
            content=message.content,
            thinking=message.thinking,
            tool_calls=message.tool_calls,
            stats=stats,
        )
        self.publish(
            MessageFinished(session_id=self.session_id, message_id=message.id, stats=stats)
        )
        self._message = None
        return done.tool_calls

    def _save_if_due(self) -> None:
        now = time.monotonic()
        if self._message is None or now - self._last_save < SAVE_INTERVAL:
            return
        self._last_save = now
        self.chats.update_message(
            self._message.id, content=self._message.content, thinking=self._message.thinking
        )

    def _finish_message(self, *, stopped: bool, error: str | None = None) -> None:
        """Keep what streamed of an interrupted answer, marked stopped."""
        message = self._message
        if message is None:
            return
        self._message = None
        self.chats.update_message(
            message.id,
            content=message.content,
            thinking=message.thinking,
            stopped=stopped,
            error=error,
            stats={},
        )
        self.publish(
            MessageFinished(session_id=self.session_id, message_id=message.id, stopped=stopped)
        )

    # ---- tool calls -------------------------------------------------------------------------

    def _new_record(self, call: ToolCall) -> ToolCallRecord:
        message_id = self._last_assistant_id()
        record = ToolCallRecord(
            call_id=new_id("c"),
            session_id=self.session_id,
            message_id=message_id,
            provider_id=call.id,
            name=call.name,
            arguments=call.arguments,
        )
        return record

    def _last_assistant_id(self) -> str:
        for record in reversed(self.chats.messages(self.session_id)):
            if record.role == "assistant":
                return record.id
        return ""

    def _save_record(self, record: ToolCallRecord) -> None:
        self.chats.upsert_tool_call(record)

    def _update(self, record: ToolCallRecord, status: ToolStatus, **fields: Any) -> None:
        record.status = status
        for key, value in fields.items():
            setattr(record, key, value)
        self._save_record(record)
        self.publish(
            ToolCallUpdate(
                session_id=self.session_id,
                call_id=record.call_id,
                status=status,
                result=record.result,
                duration_ms=record.duration_ms,
                undoable=record.undoable,
            )
        )

    def _answer(self, record: ToolCallRecord, result: dict[str, Any]) -> None:
        """The tool message the model receives, in the order of the calls."""
        self.chats.add_message(
            MessageRecord(
                session_id=self.session_id,
                turn_id=self.turn_id,
                role="tool",
                content=json.dumps(result, ensure_ascii=False),
                tool_name=record.name,
                tool_call_id=record.provider_id,
            )
        )
        if self.on_tool_record is not None:
            self.on_tool_record(record)

    def _announce(self, record: ToolCallRecord, status: ToolStatus) -> None:
        record.status = status
        self._save_record(record)
        self.publish(
            ToolCallEvent(
                session_id=self.session_id,
                message_id=record.message_id,
                call_id=record.call_id,
                name=record.name,
                args=record.arguments,
                risk=record.risk,
                status=status,
                preview=record.preview,
            )
        )

    async def _skip_call(self, call: ToolCall, reason: str) -> None:
        record = self._new_record(call)
        self._announce(record, "pending")
        result = failure(reason)
        self._update(record, "cancelled", result=result, decision="skipped", decided_by="rule")
        self._answer(record, result)

    async def _handle_call(self, call: ToolCall) -> None:
        record = self._new_record(call)
        toolbox = self.toolbox
        problem = self._problem(call)
        if problem is not None or toolbox is None:
            self._announce(record, "pending")
            result = failure(problem or "tools are disabled")
            self._update(record, "error", result=result, decision="refused", decided_by="rule")
            self._answer(record, result)
            return
        tool = toolbox.tool(call.name)
        assert tool is not None
        record.risk = tool.risk.value
        preview = await asyncio.to_thread(toolbox.preview, call.name, call.arguments)
        record.preview = preview
        self._announce(record, "pending")
        if preview.get("kind") == "error":
            result = failure(str(preview.get("text") or "refused by the sandbox policy"))
            self._update(record, "error", result=result, decision="refused", decided_by="rule")
            self._answer(record, result)
            return
        if needs_confirmation(
            tool=call.name,
            risk=tool.risk,
            mode=self.config.confirmation_mode,
            preview=preview,
            granted=self.broker.granted(self.session_id, call.name),
        ):
            try:
                outcome = await self.broker.request(
                    ApprovalNeeded(
                        session_id=self.session_id,
                        call_id=record.call_id,
                        name=call.name,
                        args=call.arguments,
                        risk=tool.risk.value,
                        preview=preview,
                        can_remember=can_remember(tool.risk),
                        expires_at=time.time() + self.broker.timeout,
                    )
                )
            except asyncio.CancelledError:
                result = failure("cancelled: the user stopped the turn")
                self._update(record, "cancelled", result=result, decision="cancelled",
                             decided_by="abort")
                self._answer(record, result)
                raise
            record.decision, record.decided_by = outcome.decision, outcome.by
            if outcome.decision != "approved":
                why = {
                    "denied": "the user denied this call",
                    "timeout": "no answer within the confirmation timeout; counted as denied",
                    "cancelled": "cancelled",
                }[outcome.decision]
                result = failure(f"{call.name} was not run: {why}")
                self._update(record, "cancelled", result=result)
                self._answer(record, result)
                return
        else:
            record.decision, record.decided_by = "approved", "rule"
        await self._run(record, toolbox)

    def _problem(self, call: ToolCall) -> str | None:
        if call.arguments_error:
            return f"invalid arguments for {call.name}: {call.arguments_error}"
        if self.toolbox is None:
            return "tools are disabled"
        checked = self.toolbox.validate(call.name, call.arguments)
        return checked if isinstance(checked, str) else None

    async def _run(self, record: ToolCallRecord, toolbox: Toolbox) -> None:
        self._update(record, "running")
        cancel = threading.Event()
        started = time.monotonic()
        job = asyncio.ensure_future(
            asyncio.to_thread(
                toolbox.execute,
                record.name,
                record.arguments,
                call_id=record.call_id,
                cancel=cancel,
            )
        )
        try:
            result = await asyncio.shield(job)
        except asyncio.CancelledError:
            cancel.set()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(job), TOOL_STOP_GRACE)
            result = failure("cancelled: the user stopped the turn")
            self._update(record, "cancelled", result=result,
                         duration_ms=round((time.monotonic() - started) * 1000, 1))
            self._answer(record, result)
            raise
        duration = round((time.monotonic() - started) * 1000, 1)
        if result.get("cancelled"):
            status: ToolStatus = "cancelled"
        else:
            status = "success" if result.get("success") else "error"
        journal = toolbox.journal
        undoable = bool(
            status == "success"
            and journal is not None
            and record.risk in (Risk.WRITE.value, Risk.DESTRUCTIVE.value)
            and journal.can_undo(record.call_id)
        )
        self._update(record, status, result=result, duration_ms=duration, undoable=undoable)
        self._answer(record, result)
