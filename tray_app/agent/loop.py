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
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tray_app.agent.approval import ApprovalBroker
from tray_app.agent.calls import CallHandler
from tray_app.agent.context import fit_history
from tray_app.agent.prompts import build_system_prompt
from tray_app.core.events import (
    ContentDelta,
    MessageFinished,
    MessageStarted,
    Notice,
    ThinkingDelta,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from tray_app.errors import (
    CapabilityError,
    ModelNotFound,
    ProviderError,
    ProviderUnavailable,
    StoreError,
    StreamError,
)
from tray_app.providers.base import (
    ChatMessage,
    ChatRequest,
    ModelInfo,
    Provider,
    ProviderNotice,
    StreamDone,
    ToolCall,
)
from tray_app.store.records import ChatRepository, MessageRecord, ToolCallRecord
from tray_app.tools.base import Toolbox

SAVE_INTERVAL = 1.0  # seconds between saves of a streaming answer ("nothing lost")


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
        self.calls = CallHandler(
            session_id=session_id,
            turn_id=turn_id,
            toolbox=toolbox,
            broker=broker,
            chats=chats,
            publish=publish,
            confirmation_mode=config.confirmation_mode,
            on_tool_record=on_tool_record,
        )
        self.rounds = 0
        self.totals: dict[str, float] = {"prompt_tokens": 0, "completion_tokens": 0}
        self._message: MessageRecord | None = None

    # ---- the turn ---------------------------------------------------------------------------

    async def run(self) -> str:
        """Run to the end; returns the stop reason ("done", "max_rounds", "aborted", "failed")."""
        started = time.monotonic()
        announced = False
        try:
            info = await self.provider.model_info(self.config.model)
            tools = self._tool_definitions(info)
            self._announce_start(tools_enabled=bool(tools))
            announced = True
            reason = await self._rounds(info, tools)
        except asyncio.CancelledError:
            if not announced:
                self._announce_start(tools_enabled=False)
            self._finish_message(stopped=True)
            self._finish("aborted", started)
            return "aborted"
        except (ProviderError, StoreError) as exc:
            code = error_code(exc) if isinstance(exc, ProviderError) else "store_error"
            if not announced:  # consumers always see turn_started before the turn's end
                self._announce_start(tools_enabled=False)
            # If the store is what failed, the event below still tells the user.
            with contextlib.suppress(StoreError):
                self._finish_message(stopped=True, error=str(exc))
            self.publish(
                TurnFailed(
                    session_id=self.session_id,
                    turn_id=self.turn_id,
                    code=code,
                    message=str(exc),
                )
            )
            return "failed"
        self._finish(reason, started)
        return reason

    def _notice(self, code: str, message: str) -> None:
        """Something the user should see that is not an error (tools dropped, round limit...)."""
        self.publish(
            Notice(
                session_id=self.session_id,
                turn_id=self.turn_id,
                level="warning",
                code=code,
                message=message,
            )
        )

    def _announce_start(self, *, tools_enabled: bool) -> None:
        self.publish(
            TurnStarted(
                session_id=self.session_id,
                turn_id=self.turn_id,
                model=self.config.model,
                tools_enabled=tools_enabled,
            )
        )

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
            self._notice(
                "tools_unsupported",
                (
                    f"{self.config.model} cannot call tools, so this is a plain chat: "
                    "it cannot read or change files. Pick a model with the tools badge "
                    "to let it work on files."
                ),
            )
            return None
        return definitions

    async def _rounds(self, info: ModelInfo, tools: list[dict[str, Any]] | None) -> str:
        think = self.config.think if info.supports("thinking") else None
        vision = info.supports("vision")
        if not vision and any(
            m.images for m in self.chats.messages(self.session_id) if m.turn_id == self.turn_id
        ):
            self._notice(
                "images_unsupported",
                (
                    f"{self.config.model} cannot see images, so the attached images "
                    "were not sent. Pick a model with the vision badge to ask about them."
                ),
            )
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
            message_id, calls = await self._stream(request, round_no)
            if not calls:
                return "done"
            last_round = round_no == self.config.max_rounds
            for call in calls:
                if last_round:
                    await self.calls.skip(call, message_id, "not run: the round limit was reached")
                else:
                    await self.calls.handle(call, message_id)
        self._notice(
            "max_rounds",
            (
                f"Stopped after {self.config.max_rounds} rounds of tool calls "
                "(the limit in settings). Send a message to let the model continue."
            ),
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

    async def _stream(self, request: ChatRequest, round_no: int) -> tuple[str, list[ToolCall]]:
        message = MessageRecord(
            session_id=self.session_id,
            turn_id=self.turn_id,
            role="assistant",
            model=self.config.model,
            stats={"streaming": True},
        )
        self.chats.add_message(message)
        self._message = message
        self.publish(
            MessageStarted(
                session_id=self.session_id,
                turn_id=self.turn_id,
                message_id=message.id,
                round=round_no,
                model=self.config.model,
            )
        )
        saver = asyncio.get_running_loop().create_task(self._save_periodically(message))
        try:
            done = await self._consume(request, message)
        finally:
            saver.cancel()
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
        return message.id, done.tool_calls

    async def _consume(self, request: ChatRequest, message: MessageRecord) -> StreamDone | None:
        done: StreamDone | None = None
        async for item in self.provider.chat(request):
            if isinstance(item, StreamDone):
                done = item
            elif isinstance(item, ProviderNotice):  # the server is busy: say so while waiting
                self.publish(
                    Notice(
                        session_id=self.session_id,
                        turn_id=self.turn_id,
                        level="warning",
                        code="server_busy_retry",
                        message=item.message,
                        args={
                            "status": item.status,
                            "seconds": math.ceil(item.retry_in_s),
                            "attempt": item.attempt,
                            "attempts": item.attempts,
                        },
                    )
                )
            elif item.kind == "thinking":
                message.thinking += item.text
                self.publish(
                    ThinkingDelta(session_id=self.session_id, message_id=message.id, text=item.text)
                )
            else:
                message.content += item.text
                self.publish(
                    ContentDelta(session_id=self.session_id, message_id=message.id, text=item.text)
                )
        return done

    async def _save_periodically(self, message: MessageRecord) -> None:
        """Save the growing answer every second, also while the model is quiet."""
        saved = ("", "")
        while True:
            await asyncio.sleep(SAVE_INTERVAL)
            current = (message.content, message.thinking)
            if current != saved:
                self.chats.update_message(message.id, content=current[0], thinking=current[1])
                saved = current

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
