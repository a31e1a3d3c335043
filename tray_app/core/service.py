"""``Core``: the only door into the app, a thin thread-safe facade over small services.

Each public method is one command of ``protocol.CoreApi``: it hands the work to the core loop
(``runner.CoreRunner``), where the services live, waits for the result and returns plain
JSON-able data (``results``), or raises a class of ``tray_app.base.errors``. The services hold the
state and one job each:

    SettingsService  the settings in force (one place), saving, the keyring   settings_service
    ModelService     the provider, models, pulls, the API key                 model_service
    SessionService   chats: create, read in pages, rename, delete, export      session_service
    TurnService      turns, stopping, approvals, the app's state              turn_service
    ChangeService    what the agent changed on disk, undo                     change_service
    McpHost          the MCP servers from the settings, their tools, status   mcp_host

The popup bridge, the tray, notifications, the terminal mode and the tests use these commands
and read the events on ``Core.bus``.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable, Collection, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from tray_app.agent.approval import ApprovalBroker
from tray_app.base.errors import NotFound
from tray_app.base.events import ClientFlag, DecidedBy
from tray_app.base.paths import AppPaths
from tray_app.core.active import ActiveTurns
from tray_app.core.bus import EventBus
from tray_app.core.change_service import ChangeService
from tray_app.core.mcp_host import McpHost, McpStart
from tray_app.core.model_service import (
    ModelService,
    ProviderFactory,
    default_provider_factory,
)
from tray_app.core.results import (
    ApiKeySaved,
    Decided,
    Deleted,
    Exported,
    Json,
    KeyringStatus,
    McpSecretSaved,
    MessagePage,
    ModelList,
    PullStarted,
    Repaired,
    ServedTool,
    ServerStatus,
    SessionData,
    SessionHit,
    SessionSnapshot,
    SettingsSaved,
    Status,
    Stopped,
    ToolCheckDone,
    TurnRef,
    TurnUndone,
    Undone,
)
from tray_app.core.runner import CoreRunner
from tray_app.core.session_service import SessionService
from tray_app.core.settings_service import Secrets, SettingsService
from tray_app.core.turn_service import TurnService
from tray_app.core.turns import TurnFactory
from tray_app.i18n import resolve_language
from tray_app.store.records import ChatRepository, MemoryChats
from tray_app.store.settings import Settings, ToolMode
from tray_app.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from tray_app.store.secrets import SecretStore

log = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = ["Core", "ProviderFactory", "default_provider_factory"]


class Core:
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
        mcp: McpStart = "start",
    ) -> None:
        self.paths = paths
        self.bus = EventBus()
        self.history_warning = history_warning
        self._runner = CoreRunner()
        self._chats: ChatRepository = chats if chats is not None else MemoryChats()
        publish = self.bus.publish
        self._broker = ApprovalBroker(publish, timeout=settings.confirmation_timeout)
        self._active = ActiveTurns()
        keyring = self._keyring = Secrets(secrets)
        self._settings = SettingsService(
            settings, paths=paths, persist=persist_settings, secrets=keyring, publish=publish
        )
        self._mcp = McpHost(
            paths,
            lambda: self._settings.current,
            keyring.lookup,
            start=mcp,
            publish=publish,
            store=keyring.get,
        )
        self._settings.listen(self._mcp_follow)
        self._factory = TurnFactory(paths, tool_registry, extra_tools=self._mcp.tools)
        self._models = ModelService(self._settings, keyring, provider_factory, publish)
        self._sessions = SessionService(
            self._chats,
            settings=self._settings,
            factory=self._factory,
            active=self._active,
            broker=self._broker,
            publish=publish,
        )
        self._turns = TurnService(
            sessions=self._sessions,
            settings=self._settings,
            models=self._models,
            factory=self._factory,
            broker=self._broker,
            active=self._active,
            publish=publish,
            on_tool_record=on_tool_record,
            history_warning=history_warning,
            wait_for_tools=self._mcp.before_turn,
        )
        self._changes = ChangeService(self._factory, publish, self._chats)

    # ---- life cycle -------------------------------------------------------------------------

    def start(self) -> Core:
        self._runner.start()
        self._mcp.started(self._settings.current)  # the desktop app's servers start now
        return self

    def stop(self, timeout: float = 3.0) -> None:
        async def close() -> None:
            await self._turns.stop_all(timeout / 2)
            await self._models.reset()
            self._chats.close()
            self._factory.close()

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

    def _call(self, fn: Callable[..., T], *args: Any, timeout: float | None = 30.0) -> T:
        return self._runner.call(fn, *args, timeout=timeout)

    def _await(self, coro: Coroutine[Any, Any, T], timeout: float | None = 30.0) -> T:
        return self._runner.run(coro, timeout)

    async def _mcp_follow(self, _old: Settings, new: Settings) -> None:
        self._mcp.settings_changed(new)  # servers added, changed or removed: at once

    @property
    def settings(self) -> Settings:
        """The settings in force (read-only; change them with ``update_settings``)."""
        return self._settings.current

    # ---- chats ------------------------------------------------------------------------------

    def new_session(self, *, model: str | None = None, workspace: str | None = None) -> SessionData:
        return self._call(self._sessions.new, model, workspace)

    def list_sessions(
        self, query: str | None = None, *, limit: int = 200, before: Json | None = None
    ) -> list[SessionData]:
        return self._call(self._sessions.recent, query, limit, before)

    def search_sessions(self, query: str | None = None) -> list[SessionHit]:
        return self._call(self._sessions.search, query)

    def get_session(self, session_id: str, *, limit: int | None = None) -> SessionSnapshot:
        return self._call(self._sessions.get, session_id, limit)

    def get_messages(
        self, session_id: str, *, before: str | None = None, limit: int = 50
    ) -> MessagePage:
        return self._call(self._sessions.messages, session_id, before, limit)

    def update_session(self, session_id: str, **fields: Any) -> SessionData:
        return self._call(self._sessions.update, session_id, fields)

    def delete_session(self, session_id: str) -> Deleted:
        return self._call(self._sessions.delete, session_id)

    def export_session(self, session_id: str, *, fmt: str = "markdown") -> Exported:
        return self._call(self._sessions.export, session_id, fmt)

    def repair_session(self, session_id: str) -> Repaired:
        return self._call(self._sessions.repair, session_id)

    # ---- turns and approvals ----------------------------------------------------------------

    def send_message(
        self, session_id: str, text: str, *, images: list[str] | None = None
    ) -> TurnRef:
        """Store the user's message, then start a turn; returns at once with its turn id."""
        return self._call(self._turns.send, session_id, text, images)

    def retry(self, session_id: str) -> TurnRef:
        """Answer the last user message again (after an error or a stop)."""
        return self._call(self._turns.resend, session_id, None)

    def edit_last(self, session_id: str, text: str) -> TurnRef:
        """Replace the last user message and answer it again."""
        return self._call(self._turns.resend, session_id, text)

    def abort(self, session_id: str | None = None) -> Stopped:
        return self._call(self._turns.abort, session_id)

    def wait_idle(self, session_id: str, timeout: float = 30.0) -> bool:
        """Block until the chat has no running turn (tests and the terminal)."""
        return self._await(self._turns.wait_idle(session_id, timeout), timeout + 5)

    def decide(
        self,
        call_id: str,
        approve: bool,
        *,
        remember: bool = False,
        by: DecidedBy = "popup",
        rule: bool = False,
    ) -> Decided:
        return self._call(self._turns.decide, call_id, approve, remember, by, rule)

    def pending_approvals(self) -> list[Json]:
        return self._call(self._turns.pending)

    def permissions(self) -> Json:
        return self._call(self._turns.permissions)

    def revoke_grant(self, session_id: str, tool: str) -> Json:
        return self._call(self._turns.revoke_grant, session_id, tool)

    def status(self) -> Status:
        return self._call(self._turns.status)

    # ---- the server and models --------------------------------------------------------------

    def list_models(self) -> ModelList:
        return self._await(self._models.list_models(), 60)

    def server_status(self) -> ServerStatus:
        return self._await(self._models.server_status())

    def pull_model(self, name: str) -> PullStarted:
        return self._call(self._models.pull, name)

    def set_model_tool_mode(self, name: str, mode: ToolMode | None) -> ModelList:
        """How a model is offered the tools: "native", "prompt", "off", None for automatic."""
        return self._await(self._models.set_tool_mode(name, mode), 60)

    def check_model_tools(self, name: str) -> ToolCheckDone:
        """Send the model one small tool request, store how it called and the mode that
        follows (a model may take minutes to load: no timeout, the server's own applies)."""
        language = resolve_language(self._settings.current.language)
        return self._await(self._models.check_tools(name, language), None)

    # ---- settings ---------------------------------------------------------------------------

    def get_settings(self) -> Json:
        # Off the core loop: the settings in force are an immutable instance that is swapped,
        # never changed. Never opens the keyring (the tray asks for these while it starts).
        return self._settings.view()

    def keyring_status(self) -> KeyringStatus:
        """Whether keys can be kept and what storing one will ask (the Settings page's note).
        Off the core loop: opening the keyring can start helper processes."""
        return self._keyring.status()

    def update_settings(self, patch: Json) -> SettingsSaved:
        if isinstance(patch, dict) and "mcp_servers" in patch:  # the user saves tool servers:
            # a locked keyring holding their secrets is asked here, on the caller's thread
            self._mcp.ask_for_secrets(patch["mcp_servers"], self._settings.current.mcp_servers)
        return self._await(self._settings.update(patch))

    def set_api_key(self, key: str | None, *, endpoint: str | None = None) -> ApiKeySaved:
        # The keyring write runs on the caller's thread: it may ask the user and wait.
        target, store = self._models.store_api_key(key, endpoint)
        kept = bool(key and key.strip())
        return self._await(self._models.api_key_stored(target, store, kept))

    def start_tool(
        self,
        session_id: str,
        name: str,
        arguments: dict[str, Any],
        *,
        client_flag: ClientFlag | None = None,
    ) -> concurrent.futures.Future[Json]:
        """Start one tool call outside a model turn, with the same approvals (``mcp serve``;
        ``client_flag`` approves what its --yes / --yes-all allow, recorded as ``mcp_flag``);
        cancelling the future stops the call like stopping a turn."""
        return self._runner.submit(self._turns.run_tool(session_id, name, arguments, client_flag))

    def mcp_tools(self) -> list[ServedTool]:
        """The MCP servers' tools a turn is offered now, named and described as the model sees
        them (``mcp serve`` offers them to its client while this app runs)."""
        return self._call(self._served_tools)

    def _served_tools(self) -> list[ServedTool]:
        return [
            {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.schema(),
                "risk": tool.risk.value,
            }
            for tool in self._factory.offered_extras(self._settings.current)
        ]

    def mcp_status(self) -> list[Json]:
        """The MCP servers: status, last error, tools with their risk (any thread)."""
        return self._mcp.status()

    def set_mcp_secret(self, name: str, secret: str | None) -> McpSecretSaved:
        """Keep a secret a server's ``env``/``headers`` refer to as ``keyring:NAME`` (an empty
        one removes it); servers that use it restart. Off the core loop: the keyring may be slow."""
        return self._mcp.set_secret(name, secret)

    # ---- changes ----------------------------------------------------------------------------

    def undo_last(self) -> Undone:
        return self._call(self._changes.undo_last)

    def undo(self, call_id: str) -> Undone:
        return self._call(self._changes.undo_call, call_id)

    def undo_change(self, change_id: str) -> Undone:
        return self._call(self._changes.undo_change, change_id)

    def undo_turn(
        self, turn: str, *, force: bool = False, force_ids: Collection[str] = ()
    ) -> TurnUndone:
        # a turn may have restored many files: longer than one change may take
        return self._call(
            lambda: self._changes.undo_turn(turn, force=force, force_ids=force_ids),
            timeout=300.0,
        )

    def full_result(self, call_id: str) -> Json:
        """The whole result of a call whose result was shortened for the model (the card's
        "Show all"); kept in memory, bounded, so an old or restarted one is NotFound."""
        found = self._factory.full_results.get(call_id)
        if found is None:
            raise NotFound("the whole result is no longer kept; ask again to see it all")
        return dict(found)

    def changes(self) -> list[Json]:
        return self._call(self._changes.changes)
