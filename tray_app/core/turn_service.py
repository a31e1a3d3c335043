"""Turns: store the user's message, run the agent turn as a task, stop it, answer its questions.

A chat runs one turn at a time (``Busy`` otherwise). A turn's failure is an event
(``turn_failed``), never an exception out of a command: the command returns as soon as the turn
has started. The app's state (idle, working, waiting, error) follows the running turns and the
waiting approvals. Runs on the core thread only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, cast

from tray_app.agent.approval import ApprovalBroker
from tray_app.agent.calls import CallHandler
from tray_app.agent.loop import AgentTurn, error_code, internal_error_text
from tray_app.base.errors import Busy, InvalidRequest, NotFound, ProviderError
from tray_app.base.events import (
    ClientFlag,
    DecidedBy,
    Event,
    FailureCode,
    StateChanged,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from tray_app.base.messages import ToolCall, ToolCallRecord
from tray_app.core.active import ActiveTurns
from tray_app.core.model_service import ModelService
from tray_app.core.results import Decided, Json, State, Status, Stopped, TurnRef
from tray_app.core.session_service import SessionService
from tray_app.core.settings_service import SettingsService
from tray_app.core.turns import TurnFactory
from tray_app.history_warnings import warning_info
from tray_app.i18n import language_names, system_language
from tray_app.store.records import MessageRecord, new_id
from tray_app.store.settings import Settings
from tray_app.tools.result import failure
from tray_app.tools.tool_rules import (
    Action,
    RuleBook,
    book_for,
    known_tools,
    new_rule,
    rule_rows,
)

log = logging.getLogger(__name__)

NO_MODEL = (
    "No model is installed. Pull one first, for example `ollama pull qwen3:8b`, "
    "or pick a model in settings."
)


#: Rules Settings lists at most (``metona-tray rules`` lists them all).
SHOWN_RULES = 1_000


def session_title(text: str) -> str:
    first = " ".join(text.strip().split())
    return first if len(first) <= 60 else first[:57].rstrip() + "…"


class TurnService:
    def __init__(
        self,
        *,
        sessions: SessionService,
        settings: SettingsService,
        models: ModelService,
        factory: TurnFactory,
        broker: ApprovalBroker,
        active: ActiveTurns,
        publish: Callable[[Event], None],
        on_tool_record: Callable[[Any], None] | None = None,
        history_warning: str | None = None,
        wait_for_tools: Callable[[], None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._chats = sessions.chats
        self._settings = settings
        self._models = models
        self._factory = factory
        self._broker = broker
        self._active = active
        self._publish = publish
        self._on_tool_record = on_tool_record
        self._history_warning = history_warning
        self._wait_for_tools = wait_for_tools  # blocking: MCP servers still starting (bounded)
        self._last_failed = False
        broker.on_change = self.publish_state

        async def follow_timeout(_old: Settings, new: Settings) -> None:
            broker.timeout = new.confirmation_timeout

        settings.listen(follow_timeout)
        broker.on_rule = self.keep_rule

    def rule_book(self) -> RuleBook:
        """The lasting rules in force now (a rule made mid-turn applies to the next call)."""
        return book_for(self._settings.current.tool_rules)

    def permissions(self) -> Json:
        """Settings › Permissions: every lasting rule (numbered, whether it holds and why not;
        the first ``SHOWN_RULES``) and every session grant, with when each was made."""
        from tray_app.tools.registry import default_registry

        settings = self._settings.current
        registry = self._factory.registry or default_registry()
        known = known_tools(registry.names(), settings.mcp_servers)
        rows = rule_rows(settings.tool_rules[:SHOWN_RULES], known)
        grants = self._broker.grants()
        for grant in grants:
            session = self._chats.get_session(grant["session_id"])
            grant["title"] = session.title if session is not None else ""
        return {"rules": rows, "total": len(settings.tool_rules), "grants": grants}

    def revoke_grant(self, session_id: str, tool: str) -> Json:
        """Take back a chat's "don't ask again" for a tool; ``NotFound`` when it had none."""
        if not self._broker.revoke(session_id, tool):
            raise NotFound(f"no grant for {tool} in chat {session_id}")
        return {"session_id": session_id, "tool": tool, "revoked": True}

    async def keep_rule(self, tool: str, folder: str | None, action: str) -> None:
        """Save a rule made from a card; one for the same tool and folder is replaced."""
        kept = [
            r
            for r in self._settings.current.tool_rules
            if not (isinstance(r, dict) and r.get("tool") == tool and r.get("folder") == folder)
        ]
        made = new_rule(tool, folder, cast("Action", action))
        await self._settings.update({"tool_rules": [*kept, made]})

    # ---- starting a turn --------------------------------------------------------------------

    def send(self, session_id: str, text: str, images: list[str] | None) -> TurnRef:
        """Store the user's message, then start a turn; returns at once with its turn id."""
        self._sessions.require(session_id)
        self._refuse_if_busy(session_id)
        turn_id = new_id("t")
        self._chats.add_message(
            MessageRecord(
                session_id=session_id,
                turn_id=turn_id,
                role="user",
                content=text,
                images=list(images or []),
            )
        )
        session = self._sessions.require(session_id)
        title = {} if session.title else {"title": session_title(text)}
        self._sessions.changed(self._chats.update_session(session_id, **title))
        return self._start(session_id, turn_id)

    def resend(self, session_id: str, text: str | None) -> TurnRef:
        """Answer the last user message again (``text``: replaced by it first)."""
        self._sessions.require(session_id)
        self._refuse_if_busy(session_id)
        messages = self._chats.messages(session_id)
        last_user = next((m for m in reversed(messages) if m.role == "user"), None)
        if last_user is None:
            raise InvalidRequest("there is no message to send again")
        turn_id = new_id("t")
        self._chats.delete_messages_from(session_id, last_user.id)
        content = last_user.content if text is None else text
        update = {"id": new_id("m"), "turn_id": turn_id, "content": content}
        self._chats.add_message(last_user.model_copy(update=update))
        self._sessions.changed(self._sessions.require(session_id))
        return self._start(session_id, turn_id)

    def _refuse_if_busy(self, session_id: str) -> None:
        if session_id in self._active:
            raise Busy("this chat is still answering; stop it first")

    def _start(self, session_id: str, turn_id: str) -> TurnRef:
        task = asyncio.get_running_loop().create_task(self._turn(session_id, turn_id))
        self._active.add(session_id, task)
        self._last_failed = False
        self.publish_state()
        return {"turn_id": turn_id, "session_id": session_id}

    # ---- the turn task ----------------------------------------------------------------------

    async def _turn(self, session_id: str, turn_id: str) -> str:
        reason = "failed"
        try:
            reason = await self._run_turn(session_id, turn_id)
            return reason
        except asyncio.CancelledError:
            # Stopped before the agent turn began (e.g. while picking a model): still end it.
            reason = "aborted"
            self._publish(
                TurnFinished(
                    session_id=session_id, turn_id=turn_id, stop_reason="aborted", rounds=0
                )
            )
            raise
        except Exception as exc:  # a bug before the agent turn ran (it catches its own)
            log.exception("turn %s crashed", turn_id)
            self._crashed(session_id, turn_id, internal_error_text(exc))
            return reason
        finally:
            self._active.discard(session_id)
            self._last_failed = reason == "failed"
            self.publish_state()

    async def _run_turn(self, session_id: str, turn_id: str) -> str:
        settings = self._settings.current
        session = self._sessions.require(session_id)
        model = session.model or settings.default_model
        failure: tuple[FailureCode, str] = ("no_models", NO_MODEL)
        if not model:
            try:
                model = await self._models.pick_model()
            except ProviderError as exc:  # the server is down: say so, not "no model"
                failure = (error_code(exc), str(exc))
            if model:
                session = self._chats.update_session(session_id, model=model)
                self._sessions.changed(session)
        if not model:
            self._publish(
                TurnStarted(session_id=session_id, turn_id=turn_id, model="", tools_enabled=False)
            )
            code, message = failure
            self._publish(
                TurnFailed(session_id=session_id, turn_id=turn_id, code=code, message=message)
            )
            return "failed"
        if self._wait_for_tools is not None:
            await asyncio.to_thread(self._wait_for_tools)
        turn = AgentTurn(
            session_id=session_id,
            turn_id=turn_id,
            provider=self._models.provider,
            toolbox=self._factory.toolbox(settings, session.workspace),
            broker=self._broker,
            chats=self._chats,
            publish=self._publish,
            config=self._factory.config(settings, model),
            workspace=self._factory.workspace(settings, session.workspace),
            on_tool_record=self._on_tool_record,
            rules=self.rule_book,
        )
        return await turn.run()

    def _crashed(self, session_id: str, turn_id: str, text: str) -> None:
        self._publish(
            TurnStarted(session_id=session_id, turn_id=turn_id, model="", tools_enabled=False)
        )
        try:  # the error goes into the chat too, like one inside the turn
            self._chats.add_message(
                MessageRecord(
                    session_id=session_id,
                    turn_id=turn_id,
                    role="assistant",
                    stopped=True,
                    error=text,
                )
            )
        except Exception:  # the store may be what broke; the event still tells the user
            log.exception("could not store the error of turn %s", turn_id)
        self._publish(
            TurnFailed(session_id=session_id, turn_id=turn_id, code="internal", message=text)
        )

    # ---- stopping and waiting ---------------------------------------------------------------

    async def run_tool(
        self,
        session_id: str,
        name: str,
        arguments: dict[str, Any],
        client_flag: ClientFlag | None = None,
    ) -> Json:
        """One tool call from outside a model turn (``metona-tray mcp serve``): recorded in the
        chat as an assistant request and its answer, through the same checks, approvals,
        cards, budgets and audit log as a call the model makes. The tool's result.
        ``client_flag`` approves what it allows for this call only (``approval.flag_allows``)."""
        session = self._sessions.require(session_id)
        settings = self._settings.current
        turn_id = new_id("t")
        call = ToolCall(id=new_id("mcp"), name=name, arguments=arguments)
        message = MessageRecord(
            session_id=session_id, turn_id=turn_id, role="assistant", tool_calls=[call]
        )
        self._chats.add_message(message)
        records: list[ToolCallRecord] = []

        def keep(record: ToolCallRecord) -> None:
            records.append(record)
            if self._on_tool_record is not None:
                self._on_tool_record(record)

        handler = CallHandler(
            session_id=session_id,
            turn_id=turn_id,
            toolbox=self._factory.toolbox(settings, session.workspace),
            broker=self._broker,
            chats=self._chats,
            publish=self._publish,
            confirmation_mode=settings.confirmation_mode,
            on_tool_record=keep,
            client_flag=client_flag,
            rules=self.rule_book,
        )
        await handler.handle(call, message.id)
        if not records or records[-1].result is None:
            return failure(f"{name} was not run", code="not_run", params={"tool": name})
        return dict(records[-1].result)

    def abort(self, session_id: str | None) -> Stopped:
        """Stop the running turn (of one chat, or all): closes the stream at once."""
        targets = [session_id] if session_id else self._active.ids()
        return {"stopped": sum(self._active.cancel(sid) for sid in targets)}

    async def wait_idle(self, session_id: str, timeout: float) -> bool:
        task = self._active.get(session_id)
        if task is None:
            return True
        done, _ = await asyncio.wait({task}, timeout=timeout)
        return bool(done)

    async def stop_all(self, timeout: float) -> None:
        tasks = self._active.tasks()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    # ---- approvals and state ----------------------------------------------------------------

    def decide(
        self, call_id: str, approve: bool, remember: bool, by: DecidedBy, rule: bool = False
    ) -> Decided:
        """Answer a waiting call (``rule``: and keep the answer as a lasting rule);
        ``NotFound`` when it no longer waits (answered elsewhere, timed out, its turn
        stopped)."""
        if not self._broker.decide(call_id, approve, remember=remember, by=by, rule=rule):
            raise NotFound(f"call {call_id} is no longer waiting for a decision")
        return {"call_id": call_id, "approved": approve}

    def pending(self) -> list[Json]:
        return self._broker.pending()

    def status(self) -> Status:
        return {
            "state": self.state(),
            "pending": self._broker.pending_count(),
            "running": self._active.ids(),
            "history_warning": self._history_warning,
            "history_warning_info": warning_info(self._history_warning),
            # The folder a new chat works in: the sandbox policy decides it (a blocked or
            # missing first allowed folder is skipped), so the page shows this, not a guess.
            "workspace": self._factory.workspace(self._settings.current, None),
            "system_language": system_language(),
            "languages": list(language_names()),
        }

    def state(self) -> State:
        if self._broker.pending_count():
            return "waiting"
        if self._active:
            return "working"
        return "error" if self._last_failed else "idle"

    def publish_state(self) -> None:
        self._publish(StateChanged(state=self.state(), pending=self._broker.pending_count()))
