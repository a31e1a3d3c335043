"""Chats: create, read (in pages), rename, move, delete, search, export, repair.

Reads and writes the chat store and publishes ``session_updated``; a chat's folder is checked
by the sandbox policy made from the settings in force. Runs on the core thread only; a missing
chat is ``NotFound``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from tray_app.agent.approval import ApprovalBroker
from tray_app.base.errors import InvalidRequest, NotFound, StoreError
from tray_app.base.events import Event, SessionUpdated
from tray_app.base.messages import ToolCallRecord
from tray_app.core.active import ActiveTurns
from tray_app.core.results import (
    Deleted,
    Exported,
    Json,
    MessagePage,
    Repaired,
    SessionData,
    SessionHit,
    SessionSnapshot,
)
from tray_app.core.settings_service import SettingsService
from tray_app.core.turns import TurnFactory
from tray_app.store.chats import search_chats
from tray_app.store.records import ChatRepository, MessageRecord, SessionRecord
from tray_app.store.recovery import recover_session

MAX_PAGE = 1000
EDITABLE = frozenset({"title", "model", "workspace"})


def page_size(limit: int) -> int:
    """A page has 1..MAX_PAGE rows whatever the caller asked."""
    return max(1, min(int(limit), MAX_PAGE))


def message_data(record: MessageRecord) -> dict[str, Any]:
    """A message for the page. A tool message's images are the ones its card already has
    (``card_images`` of its call): not sent twice."""
    data = record.model_dump()
    if record.role == "tool":
        data["images"] = []
    return data


def session_data(record: SessionRecord) -> SessionData:
    return cast(SessionData, record.model_dump())


@contextmanager
def store_lookup() -> Iterator[None]:
    """The store says ``KeyError`` for a row that is not there (an unknown ``before``
    message, a chat another process deleted meanwhile): for a command that is ``NotFound``."""
    try:
        yield
    except KeyError as exc:
        raise NotFound(str(exc.args[0]) if exc.args else "not found") from None


class SessionService:
    def __init__(
        self,
        chats: ChatRepository,
        *,
        settings: SettingsService,
        factory: TurnFactory,
        active: ActiveTurns,
        broker: ApprovalBroker,
        publish: Callable[[Event], None],
    ) -> None:
        self.chats = chats
        self._settings = settings
        self._factory = factory
        self._active = active
        self._broker = broker
        self._publish = publish

    def require(self, session_id: str) -> SessionRecord:
        session = self.chats.get_session(session_id)
        if session is None:
            raise NotFound(f"no chat {session_id!r}")
        return session

    def changed(self, session: SessionRecord, *, deleted: bool = False) -> None:
        self._publish(SessionUpdated(session=session.model_dump(), deleted=deleted))

    def new(self, model: str | None, workspace: str | None) -> SessionData:
        settings = self._settings.current
        folder = self._factory.check_workspace(settings, workspace)
        record = self.chats.create_session(model=model or settings.default_model, workspace=folder)
        self.changed(record)
        return session_data(record)

    def recent(self, query: str | None, limit: int, before: Json | None) -> list[SessionData]:
        """Newest-updated first, ``limit`` at a time; ``before`` is the ``{"updated_at",
        "id"}`` of the last session already shown (keyset paging: the next page)."""
        try:
            cursor = None if before is None else (float(before["updated_at"]), str(before["id"]))
        except (KeyError, TypeError, ValueError):
            raise InvalidRequest("before must be a session's {updated_at, id}") from None
        found = self.chats.list_sessions(query, page_size(limit), cursor)
        return [session_data(s) for s in found]

    def get(self, session_id: str, limit: int | None) -> SessionSnapshot:
        """The chat with its messages and their tool calls; with ``limit``, only the last
        ``limit`` messages and ``more_before`` (older ones: ``messages``)."""
        session = self.require(session_id)
        if limit is None:
            messages, more = self.chats.messages(session_id), False
            calls = self.chats.tool_calls(session_id)
        else:
            messages, more = self.chats.messages_page(session_id, limit=page_size(limit))
            calls = self.chats.tool_calls(session_id, [m.id for m in messages])
        return {
            "session": session_data(session),
            "messages": [message_data(m) for m in messages],
            "tool_calls": self._calls_data(calls),
            "more_before": more,
            "running": session_id in self._active,
            "workspace": self._factory.workspace(self._settings.current, session.workspace),
        }

    def messages(self, session_id: str, before: str | None, limit: int) -> MessagePage:
        """Older messages of a chat (keyset paging on the message id): the ``limit`` messages
        before message ``before`` (or the last ones), oldest first, with their tool calls."""
        self.require(session_id)
        with store_lookup():
            messages, more = self.chats.messages_page(
                session_id, before=before, limit=page_size(limit)
            )
        calls = self.chats.tool_calls(session_id, [m.id for m in messages])
        return {
            "messages": [message_data(m) for m in messages],
            "tool_calls": self._calls_data(calls),
            "more_before": more,
        }

    def _calls_data(self, calls: list[ToolCallRecord]) -> list[Json]:
        """The calls for the page, each marked ``undone`` when the undo journal (from any
        process: the history panel, the tray, ``metona-tray undo``) has undone its change."""
        data = [c.model_dump() for c in calls]
        undoable = [str(c["call_id"]) for c in data if c.get("undoable")]
        if not undoable:
            return data
        # Here, not at import: a one-shot chat never loads the journal (test_one_shot_imports).
        from tray_app.tools.journal.journal_index import IndexProblem

        try:
            undone = self._factory.journal().undone_calls(undoable)
        except (StoreError, IndexProblem, OSError):
            return data  # the journal cannot be read: the Undo button will say why
        for call in data:
            if call["call_id"] in undone:
                call["undone"] = True
        return data

    def update(self, session_id: str, fields: dict[str, Any]) -> SessionData:
        """Rename, or change the chat's model or workspace folder."""
        unknown = set(fields) - EDITABLE
        if unknown:
            raise InvalidRequest(f"cannot change {', '.join(sorted(unknown))} of a session")
        self.require(session_id)
        fields = dict(fields)
        if "workspace" in fields:
            fields["workspace"] = self._factory.check_workspace(
                self._settings.current, fields["workspace"]
            )
        if "title" in fields:
            fields["title"] = str(fields["title"]).strip()[:200]
        with store_lookup():
            record = self.chats.update_session(session_id, **fields)
        self.changed(record)
        return session_data(record)

    def delete(self, session_id: str) -> Deleted:
        session = self.require(session_id)
        self._active.cancel(session_id)
        self.chats.delete_session(session_id)
        self._broker.clear_grants(session_id)
        self.changed(session, deleted=True)
        return {"deleted": session_id}

    def search(self, query: str | None) -> list[SessionHit]:
        """Chats whose title or messages match every word of ``query`` (all when empty)."""
        if not query or not query.strip():
            return [cast(SessionHit, s.model_dump()) for s in self.chats.list_sessions()]
        found: list[SessionHit] = []
        for hit in search_chats(self.chats, query):
            session = self.chats.get_session(hit["session_id"])
            if session is not None:
                found.append(cast(SessionHit, {**session.model_dump(), "match": dict(hit)}))
        return found

    def export(self, session_id: str, fmt: str) -> Exported:
        """The chat as Markdown (readable) or JSON (complete)."""
        from tray_app.store.export import export_json, export_markdown  # on first use

        self.require(session_id)
        with store_lookup():
            if fmt == "json":
                return {"format": "json", "data": export_json(self.chats, session_id)}
            return {"format": "markdown", "data": export_markdown(self.chats, session_id)}

    def repair(self, session_id: str) -> Repaired:
        """Mark what a killed run left half-done in this chat as stopped or cancelled;
        answers a live process is still writing (``store.owners``) are left alone."""
        live_answers = getattr(self.chats, "live_answers", None)
        live = live_answers() if callable(live_answers) else set()
        return {"changed": int(recover_session(self.chats, session_id, live=live))}
