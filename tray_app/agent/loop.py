"""One agent turn: rounds of request -> stream -> tool calls, until the model stops calling tools.

The loop is UI-agnostic. It reads and writes the conversation through a ``ChatRepository``,
publishes events, and awaits a decision from the ``ApprovalBroker`` for every call that needs
one. Cancelling the task that runs ``AgentTurn.run`` is the abort: the HTTP stream closes at
once, pending approvals are cancelled, a running command is told to stop, and what streamed so
far is kept and marked stopped.

Bounds: calls beyond ``max_tool_calls_per_round`` are answered "not run"; tool
arguments are refused past their size and depth limits (``providers.tool_calls``); one message's
length and the quiet-model notice live in ``agent.answer``. Whatever else goes wrong inside a
turn ends it with the message finished, the error stored and the traceback in the log file.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast, get_args

from tray_app.agent.answer import AnswerStream, Streamed
from tray_app.agent.approval import ApprovalBroker
from tray_app.agent.calls import CallHandler
from tray_app.agent.claims import claims_a_change
from tray_app.agent.guards import MB, Budgets, TurnGuards
from tray_app.agent.history import TurnHistory
from tray_app.agent.notices import notice_text
from tray_app.agent.prompt_fallback import PromptFallback
from tray_app.agent.prompt_tools import prompt_history, tools_prompt
from tray_app.agent.prompts import build_system_prompt
from tray_app.agent.stored_images import resolved
from tray_app.agent.summary import SummaryFailed, summarise, summary_request
from tray_app.agent.tool_modes import tool_mode
from tray_app.base.errors import ProviderError, StoreError
from tray_app.base.errors import error_code as command_error_code
from tray_app.base.events import (
    FailureCode,
    Notice,
    NoticeCode,
    Publish,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from tray_app.base.messages import ChatMessage, ToolCallRecord
from tray_app.providers.base import ChatRequest, ModelInfo, Provider
from tray_app.store.records import ChatRepository, MessageRecord
from tray_app.store.settings import Settings, ToolMode
from tray_app.tools.tool_rules import RuleBook
from tray_app.tools.toolbox import Toolbox

log = logging.getLogger(__name__)

MIN_RESULT_CHARS = 2_000  # a tool result gets at least this much, even in a full context


@dataclass(frozen=True)
class TurnConfig:
    """What one turn runs with: the settings of the moment (every option and its default lives
    in ``Settings`` only), the model chosen for this turn and the language of its notices."""

    model: str
    settings: Settings = field(default_factory=Settings)
    language: str = "en"

    @property
    def keep_alive(self) -> str | None:
        return self.settings.keep_alive or None


_FAILURES = frozenset(get_args(FailureCode))


def error_code(exc: ProviderError | StoreError) -> FailureCode:
    """Why the turn failed: the error's code in ``errors.ERROR_CODES`` (the one table) when
    the page has an ``error.<code>`` text for it, else ``provider_error``."""
    code = command_error_code(exc)
    return cast(FailureCode, code) if code in _FAILURES else "provider_error"


def internal_error_text(exc: BaseException) -> str:
    """One sentence for the user about a bug; the traceback goes to the log file only."""
    if isinstance(exc, RecursionError):
        what = "the data was nested too deeply to handle"
    else:
        detail = " ".join(str(exc).split())
        detail = detail if len(detail) <= 200 else detail[:200] + "…"
        what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    return f"Internal error ({what}). The details are in the log file."


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
        publish: Publish,
        config: TurnConfig,
        workspace: str | None = None,
        on_tool_record: Callable[[ToolCallRecord], None] | None = None,
        rules: Callable[[], RuleBook] | None = None,
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
            confirmation_mode=config.settings.confirmation_mode,
            on_tool_record=on_tool_record,
            on_message=self._remember,
            result_room=self._result_room,
            rules=rules,
            guards=TurnGuards(
                Budgets(
                    files_removed=config.settings.budget_files_removed,
                    bytes_written=round(config.settings.budget_written_mb * MB),
                    commands=config.settings.budget_commands,
                )
            ),
        )
        self.rounds = 0
        self.tool_mode: ToolMode = "native"  # how this turn offers its tools (tool_modes)
        self.tool_mode_chosen = False  # by the user or a check, not automatic
        self.history: TurnHistory | None = None  # read once when the rounds begin
        self.totals: dict[str, float] = {"prompt_tokens": 0, "completion_tokens": 0}
        self.answer = AnswerStream(
            session_id=session_id,
            turn_id=turn_id,
            model=config.model,
            chats=chats,
            publish=publish,
            notice=self._notice,
            language=config.language,
            max_chars=config.settings.max_answer_chars,
            waiting_after=config.settings.waiting_notice_s,
        )

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
            self.answer.finish(stopped=True)
            self._finish("aborted", started)
            return "aborted"
        except (ProviderError, StoreError) as exc:
            code = error_code(exc)
            if not announced:  # consumers always see turn_started before the turn's end
                self._announce_start(tools_enabled=False)
            # If the store is what failed, the event below still tells the user.
            with contextlib.suppress(StoreError):
                self.answer.finish(stopped=True, error=str(exc))
            self.publish(
                TurnFailed(
                    session_id=self.session_id,
                    turn_id=self.turn_id,
                    code=code,
                    message=str(exc),
                )
            )
            return "failed"
        except Exception as exc:  # a bug: the turn still ends properly, the log has the rest
            log.exception("turn %s crashed", self.turn_id)
            self._crashed(exc, announced=announced)
            return "failed"
        self._finish(reason, started)
        return reason

    def _crashed(self, exc: Exception, *, announced: bool) -> None:
        """Finish the message with the error stored, and fail the turn with code "internal"."""
        text = internal_error_text(exc)
        if not announced:
            self._announce_start(tools_enabled=False)
        try:
            if self.answer.message is not None:
                self.answer.finish(stopped=True, error=text)
            else:  # between rounds: the error still goes into the history
                self.chats.add_message(
                    MessageRecord(
                        session_id=self.session_id,
                        turn_id=self.turn_id,
                        role="assistant",
                        model=self.config.model,
                        stopped=True,
                        error=text,
                    )
                )
        except Exception:  # the store may be what broke; the event below still tells the user
            log.exception("could not store the error of turn %s", self.turn_id)
        self.publish(
            TurnFailed(
                session_id=self.session_id, turn_id=self.turn_id, code="internal", message=text
            )
        )

    def _notice(
        self, code: NoticeCode, message: str, *, level: str = "warning", **args: int | float
    ) -> None:
        """Something the user should see that is not an error (tools dropped, round limit...).

        ``args`` are the values the page puts into its own translation of ``code``."""
        self.publish(
            Notice(
                session_id=self.session_id,
                turn_id=self.turn_id,
                level="info" if level == "info" else "warning",
                code=code,
                message=message,
                args=args,
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
        """The tools this turn offers (natively or in the prompt: ``tool_modes``), or None."""
        if not self.config.settings.tools_enabled or self.toolbox is None:
            return None
        definitions = self.toolbox.definitions()
        if not definitions:
            return None
        choice = tool_mode(info, self.config.settings)
        self.tool_mode, self.tool_mode_chosen = choice.mode, choice.chosen
        if self.tool_mode == "off":
            self._notice("tools_off", notice_text("tools_off", self.config.language))
            return None
        return definitions

    def _result_room(self) -> int:
        """The characters a tool result may take: ``tool_result_limit``, or less when the
        context has less left (two characters a token: safe for CJK and code alike), never
        below ``MIN_RESULT_CHARS`` so a call always says something useful."""
        limit = self.config.settings.tool_result_limit
        if self.history is None:
            return limit
        left = self.history.tokens_left(num_ctx=self.config.settings.num_ctx)
        return max(min(MIN_RESULT_CHARS, limit), min(limit, left * 2))

    async def _rounds(self, info: ModelInfo, tools: list[dict[str, Any]] | None) -> str:
        think = self.config.settings.think if info.supports("thinking") else None
        vision = info.supports("vision")
        history = TurnHistory.load(
            resolved(self.chats.messages(self.session_id), self.chats, self.session_id),
            self.turn_id,
            vision=vision,
            tool_result_limit=self.config.settings.tool_result_limit,
        )
        self.history = history
        if not vision and history.has_images:
            self._notice(
                "images_unsupported",
                (
                    f"{self.config.model} cannot see images, so the attached images "
                    "were not sent. Pick a model with the vision badge to ask about them."
                ),
            )
        in_prompt = bool(tools) and self.tool_mode == "prompt"
        system = self._system_message(tools if in_prompt else None, tools_enabled=bool(tools))
        await self._keep_memory(history, system, think=False if think is not None else None)
        fallback: PromptFallback | None = None  # tools refused only when asked: prompt mode
        if tools and not in_prompt and not self.tool_mode_chosen:
            described = self._system_message(tools, tools_enabled=True)
            fallback = PromptFallback(self.provider, described)
        for round_no in range(1, self.config.settings.max_rounds + 1):
            self.rounds = round_no
            if fallback is not None and fallback.switched:
                in_prompt, system, fallback = True, fallback.system, None
            messages = history.messages(system, num_ctx=self.config.settings.num_ctx)
            request = ChatRequest(
                model=self.config.model,
                messages=prompt_history(messages) if in_prompt else messages,
                tools=None if in_prompt else tools,
                think=think,
                temperature=self.config.settings.temperature,
                num_ctx=self.config.settings.num_ctx,
                keep_alive=self.config.keep_alive,
            )
            streamed = await self.answer.stream(
                fallback or self.provider, request, round_no, described=tools
            )
            for key in ("prompt_tokens", "completion_tokens"):
                self.totals[key] += streamed.stats.get(key, 0)
            if streamed.record is not None:
                history.add(streamed.record)
            if streamed.cut:
                return "answer_limit"
            if not streamed.calls:
                self._note_an_unbacked_claim(streamed)
                return "done"
            await self._run_calls(streamed, last_round=round_no == self.config.settings.max_rounds)
        self._notice(
            "max_rounds",
            (
                f"Stopped after {self.config.settings.max_rounds} rounds of tool calls "
                "(the limit in settings). Send a message to let the model continue."
            ),
        )
        return "max_rounds"

    async def _keep_memory(
        self, history: TurnHistory, system: ChatMessage | None, *, think: bool | None
    ) -> None:
        """When the earlier messages no longer fit, the model summarises the older ones; the
        summary is stored (later turns reuse it) and shown as a marker. A failed summary
        leaves the oldest messages out, as before, and says so."""
        num_ctx = self.config.settings.num_ctx
        plan = history.summary_plan(system, num_ctx=num_ctx)
        if plan is None:
            return
        request = summary_request(
            plan,
            model=self.config.model,
            num_ctx=num_ctx,
            think=think,
            keep_alive=self.config.keep_alive,
        )
        try:
            text = await summarise(self.provider, request)
        except SummaryFailed as exc:
            log.warning("turn %s: no summary of older messages: %s", self.turn_id, exc)
            said = notice_text("summary_failed", self.config.language, reason=str(exc))
            self._notice("summary_failed", said)
            return
        record = MessageRecord(
            session_id=self.session_id,
            turn_id=self.turn_id,
            role="system",
            content=text,
            model=self.config.model,
            stats={"summary": True, "through": plan.through, "covered": plan.covered},
        )
        self.chats.add_message(record)
        history.use_summary(plan, text)
        self.publish(
            Notice(
                session_id=self.session_id,
                turn_id=self.turn_id,
                level="info",
                code="history_summarized",
                message=notice_text("history_summarized", self.config.language, count=plan.covered),
                args={"count": plan.covered, "summary": text, "message_id": record.id},
            )
        )

    def _note_an_unbacked_claim(self, streamed: Streamed) -> None:
        """An answer that says it changed files when nothing that changes files ran gets a
        quiet note under it; nothing is retried (``agent.claims``)."""
        answer = streamed.record.content if streamed.record is not None else ""
        if self.calls.ran_a_change or not claims_a_change(answer):
            return
        text = notice_text("nothing_changed", self.config.language)
        self._notice("nothing_changed", text, level="info")

    async def _run_calls(self, streamed: Streamed, *, last_round: bool) -> None:
        """Each call in order; past the per-round limit each still gets a "not run" answer."""
        calls, limit = streamed.calls, self.config.settings.max_tool_calls_per_round
        if len(calls) > limit and not last_round:
            self._notice(
                "too_many_calls",
                notice_text("too_many_calls", self.config.language, count=len(calls), limit=limit),
                count=len(calls),
                limit=limit,
            )
        for index, call in enumerate(calls):
            if last_round:
                reason = "not run: the round limit was reached"
                await self.calls.skip(call, streamed.message_id, reason, "round_limit")
            elif index >= limit:
                reason = f"not run: too many calls in one round (the limit is {limit})"
                await self.calls.skip(
                    call, streamed.message_id, reason, "too_many_calls", {"limit": limit}
                )
            else:
                await self.calls.handle(call, streamed.message_id)

    # ---- history ----------------------------------------------------------------------------

    def _remember(self, record: MessageRecord) -> None:
        """A message the turn stored goes into its history too (no reload per round)."""
        if self.history is not None:
            self.history.add(record)

    def _system_message(
        self, described: list[dict[str, Any]] | None, *, tools_enabled: bool
    ) -> ChatMessage | None:
        """The system prompt; in prompt mode it also describes the tools (``described``)."""
        prompt = build_system_prompt(
            self.config.settings.system_prompt,
            tools_enabled=tools_enabled,
            language=self.config.language,
            workspace=self.workspace,
        )
        if described:
            prompt = f"{prompt}\n\n{tools_prompt(described, self.config.language)}".strip()
        return ChatMessage(role="system", content=prompt) if prompt else None
