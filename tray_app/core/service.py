"""``Core``: the only door into the app.

Every public method is safe to call from any thread: it hands the work to the core loop and
returns a plain JSON-able result. The popup bridge, the tray, notifications, the terminal mode
and the tests all use these commands and read the events on ``Core.bus``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from tray_app.agent.approval import ApprovalBroker
from tray_app.agent.loop import AgentTurn, internal_error_text
from tray_app.core.bus import EventBus
from tray_app.core.config_commands import ConfigCommands
from tray_app.core.mcp_host import McpHost
from tray_app.core.runner import CoreRunner
from tray_app.core.session_commands import SessionCommands
from tray_app.core.turns import TurnFactory
from tray_app.errors import Busy, InvalidRequest, NotFound, ProviderError
from tray_app.events import (
    DecidedBy,
    SessionUpdated,
    StateChanged,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from tray_app.paths import AppPaths
from tray_app.providers.base import Provider
from tray_app.providers.factory import make_provider
from tray_app.store.records import ChatRepository, MemoryChats, MessageRecord, new_id
from tray_app.store.settings import Settings
from tray_app.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from tray_app.store.secrets import SecretStore

ProviderFactory = Callable[[Settings, Callable[[], "SecretStore | None"]], Provider]


def default_provider_factory(
    settings: Settings, secrets: Callable[[], SecretStore | None]
) -> Provider:
    """Ollama needs no key; the keyring is only opened for an OpenAI-compatible server."""
    api_key = None
    store = secrets() if settings.provider == "openai" else None
    if store is not None:
        api_key = store.get(settings.endpoint)
    return make_provider(settings.provider, settings.endpoint, api_key=api_key)


def session_title(text: str) -> str:
    first = " ".join(text.strip().split())
    return first if len(first) <= 60 else first[:57].rstrip() + "…"


class Core(SessionCommands, ConfigCommands):
    def __init__(
        self,
        *,
        settings: Settings,
        paths: AppPaths,
        chats: ChatRepository | None = None,
        provider_factory: ProviderFactory = default_provider_factory,
        persist_settings: bool = True,
        history_warning: str | None = None,
        on_tool_record: Callable[[Any], None] | None = None,
        tool_registry: ToolRegistry | None = None,
        secrets: Callable[[], SecretStore] | None = None,
        mcp_first_turn_wait: float = 0.0,
    ) -> None:
        self.paths = paths
        self.bus = EventBus()
        self.history_warning = history_warning
        self._secrets_factory = secrets
        self._secrets: SecretStore | None = None
        self._settings = settings
        self._persist = persist_settings
        self._chats: ChatRepository = chats if chats is not None else MemoryChats()
        self._provider_factory = provider_factory
        self._provider: Provider | None = None
        self._runner = CoreRunner()
        self._broker = ApprovalBroker(self.bus.publish, timeout=settings.confirmation_timeout)
        self._broker.on_change = self._publish_state
        self._turns: dict[str, asyncio.Task[str]] = {}  # session id -> running turn
        self._mcp = McpHost(
            paths, lambda: self._settings, self._secret, first_turn_wait=mcp_first_turn_wait
        )
        self._factory = TurnFactory(paths, tool_registry, extra_tools=self._mcp.tools)
        self._on_tool_record = on_tool_record
        self._last_failed = False

    # ---- life cycle -------------------------------------------------------------------------

    def start(self) -> Core:
        self._runner.start()
        self._mcp.apply(self._settings)  # MCP servers start in the background
        return self

    def stop(self, timeout: float = 3.0) -> None:
        async def close() -> None:
            for task in list(self._turns.values()):
                task.cancel()
            if self._turns:
                await asyncio.wait(list(self._turns.values()), timeout=timeout / 2)
            if self._provider is not None:
                await self._provider.aclose()
            self._chats.close()

        try:
            self._runner.run(close(), timeout)
        except Exception:  # stopping must never hang or raise on the way out
            log.exception("error while stopping the core")
        self._runner.stop(timeout)
        self._mcp.stop()  # every MCP server, with its process tree

    def __enter__(self) -> Core:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self, fn: Callable[..., Any], *args: Any, timeout: float | None = 30.0) -> Any:
        return self._runner.call(fn, *args, timeout=timeout)

    def _secret(self, name: str) -> str | None:
        """A secret an MCP server's config refers to (``keyring:NAME``)."""
        store = self.secrets
        return store.get(name) if store is not None else None

    def mcp_status(self) -> list[dict[str, Any]]:
        """The MCP servers: status, last error, tools with their risk (any thread)."""
        return self._mcp.status()

    @property
    def secrets(self) -> SecretStore | None:
        """The keyring, opened on first need: probing it can start helper processes."""
        if self._secrets is None and self._secrets_factory is not None:
            self._secrets = self._secrets_factory()
        return self._secrets

    # ---- provider ---------------------------------------------------------------------------

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = self._provider_factory(self._settings, lambda: self.secrets)
        return self._provider

    async def _reset_provider(self) -> None:
        if self._provider is not None:
            await self._provider.aclose()
        self._provider = None

    # ---- turns ------------------------------------------------------------------------------

    def send_message(
        self, session_id: str, text: str, *, images: list[str] | None = None
    ) -> dict[str, Any]:
        """Store the user's message, then start a turn; returns at once with its turn id."""

        def send() -> dict[str, Any]:
            self._require_session(session_id)
            if session_id in self._turns:
                raise Busy("this chat is still answering; stop it first")
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
            session = self._chats.get_session(session_id)
            assert session is not None
            if not session.title:
                session = self._chats.update_session(session_id, title=session_title(text))
            else:
                session = self._chats.update_session(session_id)
            self.bus.publish(SessionUpdated(session=session.model_dump()))
            self._start_turn(session_id, turn_id)
            return {"turn_id": turn_id, "session_id": session_id}

        return dict(self._run(send))

    def retry(self, session_id: str) -> dict[str, Any]:
        """Answer the last user message again (after an error or a stop)."""
        return dict(self._run(self._resend, session_id, None))

    def edit_last(self, session_id: str, text: str) -> dict[str, Any]:
        """Replace the last user message and answer it again."""
        return dict(self._run(self._resend, session_id, text))

    def _resend(self, session_id: str, text: str | None) -> dict[str, Any]:
        self._require_session(session_id)
        if session_id in self._turns:
            raise Busy("this chat is still answering; stop it first")
        messages = self._chats.messages(session_id)
        last_user = next((m for m in reversed(messages) if m.role == "user"), None)
        if last_user is None:
            raise InvalidRequest("there is no message to send again")
        turn_id = new_id("t")
        self._chats.delete_messages_from(session_id, last_user.id)
        self._chats.add_message(
            last_user.model_copy(
                update={
                    "id": new_id("m"),
                    "turn_id": turn_id,
                    "content": last_user.content if text is None else text,
                }
            )
        )
        self.bus.publish(SessionUpdated(session=self._require_session(session_id).model_dump()))
        self._start_turn(session_id, turn_id)
        return {"turn_id": turn_id, "session_id": session_id}

    def _start_turn(self, session_id: str, turn_id: str) -> None:
        task = asyncio.get_running_loop().create_task(self._turn(session_id, turn_id))
        self._turns[session_id] = task
        self._last_failed = False
        self._publish_state()

    async def _turn(self, session_id: str, turn_id: str) -> str:
        reason = "failed"
        try:
            session = self._require_session(session_id)
            model = session.model or self._settings.default_model
            if not model:
                model = await self._pick_model()
                if model:
                    session = self._chats.update_session(session_id, model=model)
                    self.bus.publish(SessionUpdated(session=session.model_dump()))
            if not model:
                self.bus.publish(
                    TurnStarted(
                        session_id=session_id, turn_id=turn_id, model="", tools_enabled=False
                    )
                )
                self.bus.publish(
                    TurnFailed(
                        session_id=session_id,
                        turn_id=turn_id,
                        code="no_models",
                        message=(
                            "No model is installed. Pull one first, for example "
                            "`ollama pull qwen3:8b`, or pick a model in settings."
                        ),
                    )
                )
                return reason
            await asyncio.to_thread(self._mcp.wait_first_turn)
            turn = AgentTurn(
                session_id=session_id,
                turn_id=turn_id,
                provider=self.provider,
                toolbox=self._factory.toolbox(self._settings, session.workspace),
                broker=self._broker,
                chats=self._chats,
                publish=self.bus.publish,
                config=self._factory.config(self._settings, model),
                workspace=self._factory.workspace(self._settings, session.workspace),
                on_tool_record=self._on_tool_record,
            )
            reason = await turn.run()
            return reason
        except asyncio.CancelledError:
            # Stopped before the agent turn began (e.g. while picking a model): still end it.
            reason = "aborted"
            self.bus.publish(
                TurnFinished(
                    session_id=session_id, turn_id=turn_id, stop_reason="aborted", rounds=0
                )
            )
            raise
        except Exception as exc:  # a bug before the agent turn ran (it catches its own)
            log.exception("turn %s crashed", turn_id)
            text = internal_error_text(exc)
            self.bus.publish(
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
            self.bus.publish(
                TurnFailed(session_id=session_id, turn_id=turn_id, code="internal", message=text)
            )
            return reason
        finally:
            self._turns.pop(session_id, None)
            self._last_failed = reason == "failed"
            self._publish_state()

    async def _pick_model(self) -> str:
        """No model chosen anywhere: the first installed one that can use tools, else the first."""
        try:
            models = await self.provider.list_models()
        except ProviderError:
            return ""
        for model in models:
            try:
                if (await self.provider.model_info(model.name)).supports("tools"):
                    return model.name
            except ProviderError:
                continue
        return models[0].name if models else ""

    def abort(self, session_id: str | None = None) -> dict[str, Any]:
        """Stop the running turn (of one session, or all): closes the stream at once."""

        def cancel() -> dict[str, Any]:
            targets = [session_id] if session_id else list(self._turns)
            stopped = 0
            for sid in targets:
                task = self._turns.get(sid) if sid else None
                if task is not None and not task.done():
                    task.cancel()
                    stopped += 1
            return {"stopped": stopped}

        return dict(self._run(cancel))

    def wait_idle(self, session_id: str, timeout: float = 30.0) -> bool:
        """Block until the session has no running turn (tests and the terminal)."""

        async def wait() -> bool:
            task = self._turns.get(session_id)
            if task is None:
                return True
            done, _ = await asyncio.wait({task}, timeout=timeout)
            return bool(done)

        return bool(self._runner.run(wait(), timeout + 5))

    # ---- approvals --------------------------------------------------------------------------

    def decide(
        self, call_id: str, approve: bool, *, remember: bool = False, by: DecidedBy = "popup"
    ) -> dict[str, Any]:
        """Answer a waiting call; ``NotFound`` when it no longer waits (answered elsewhere,
        timed out, its turn stopped)."""
        found = self._run(lambda: self._broker.decide(call_id, approve, remember=remember, by=by))
        if not found:
            raise NotFound(f"call {call_id} is no longer waiting for a decision")
        return {"call_id": call_id, "approved": approve}

    def pending_approvals(self) -> list[dict[str, Any]]:
        return list(self._run(self._broker.pending))

    def status(self) -> dict[str, Any]:
        def read() -> dict[str, Any]:
            return {
                "state": self._compute_state(),
                "pending": self._broker.pending_count(),
                "running": list(self._turns),
                "history_warning": self.history_warning,
                # The folder a new chat works in: the sandbox policy decides it (a blocked or
                # missing first allowed folder is skipped), so the page shows this, not a guess.
                "workspace": self._factory.workspace(self._settings, None),
            }

        return dict(self._run(read))

    def _compute_state(self) -> Literal["idle", "working", "waiting", "error"]:
        if self._broker.pending_count():
            return "waiting"
        if self._turns:
            return "working"
        return "error" if self._last_failed else "idle"

    def _publish_state(self) -> None:
        state = self._compute_state()
        self.bus.publish(StateChanged(state=state, pending=self._broker.pending_count()))
