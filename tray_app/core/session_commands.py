"""Core commands about chats: create, read, rename, delete, search, export, repair.

A mixin of ``Core`` (kept apart so each module stays small); it uses only the attributes
declared below, which ``Core.__init__`` sets. Like every Core command, each one runs on the
core thread and returns plain JSON-able data.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from tray_app.agent.approval import ApprovalBroker
from tray_app.core.bus import EventBus
from tray_app.core.turns import TurnFactory
from tray_app.errors import InvalidRequest, NotFound
from tray_app.events import SessionUpdated
from tray_app.store.chats import search_chats
from tray_app.store.records import ChatRepository, SessionRecord
from tray_app.store.recovery import recover_session
from tray_app.store.settings import Settings


class SessionCommands:
    bus: EventBus
    _chats: ChatRepository
    _settings: Settings
    _factory: TurnFactory
    _broker: ApprovalBroker
    _turns: dict[str, asyncio.Task[str]]
    _run: Callable[..., Any]

    def new_session(
        self, *, model: str | None = None, workspace: str | None = None
    ) -> dict[str, Any]:
        def create() -> dict[str, Any]:
            folder = self._factory.check_workspace(self._settings, workspace)
            record = self._chats.create_session(
                model=model or self._settings.default_model, workspace=folder
            )
            self.bus.publish(SessionUpdated(session=record.model_dump()))
            return record.model_dump()

        return dict(self._run(create))

    def list_sessions(
        self,
        query: str | None = None,
        *,
        limit: int = 200,
        before: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Newest-updated first, ``limit`` at a time; ``before`` is the ``{"updated_at",
        "id"}`` of the last session already shown (keyset paging: the next page)."""
        cursor = None if before is None else (float(before["updated_at"]), str(before["id"]))
        found = self._run(self._chats.list_sessions, query, _page_size(limit), cursor)
        return [s.model_dump() for s in found]

    def get_session(self, session_id: str, *, limit: int | None = None) -> dict[str, Any]:
        """The session with its messages and their tool calls; with ``limit``, only the last
        ``limit`` messages and ``more_before`` (older ones: ``get_messages``)."""

        def read() -> dict[str, Any]:
            session = self._require_session(session_id)
            if limit is None:
                messages, more = self._chats.messages(session_id), False
                calls = self._chats.tool_calls(session_id)
            else:
                messages, more = self._chats.messages_page(session_id, limit=_page_size(limit))
                calls = self._chats.tool_calls(session_id, [m.id for m in messages])
            return {
                "session": session.model_dump(),
                "messages": [m.model_dump() for m in messages],
                "tool_calls": [c.model_dump() for c in calls],
                "more_before": more,
                "running": session_id in self._turns,
                # Where its tools really work (the sandbox's choice), absolute.
                "workspace": self._factory.workspace(self._settings, session.workspace),
            }

        return dict(self._run(read))

    def get_messages(
        self, session_id: str, *, before: str | None = None, limit: int = 50
    ) -> dict[str, Any]:
        """Older messages of a chat (keyset paging on the message id): the ``limit`` messages
        before message ``before`` (or the last ones), oldest first, with their tool calls."""

        def read() -> dict[str, Any]:
            self._require_session(session_id)
            messages, more = self._chats.messages_page(
                session_id, before=before, limit=_page_size(limit)
            )
            calls = self._chats.tool_calls(session_id, [m.id for m in messages])
            return {
                "messages": [m.model_dump() for m in messages],
                "tool_calls": [c.model_dump() for c in calls],
                "more_before": more,
            }

        return dict(self._run(read))

    def update_session(self, session_id: str, **fields: Any) -> dict[str, Any]:
        """Rename, or change the session's model or workspace folder."""
        allowed = {"title", "model", "workspace"}
        unknown = set(fields) - allowed
        if unknown:
            raise InvalidRequest(f"cannot change {', '.join(sorted(unknown))} of a session")

        def update() -> dict[str, Any]:
            self._require_session(session_id)
            if "workspace" in fields:
                fields["workspace"] = self._factory.check_workspace(
                    self._settings, fields["workspace"]
                )
            if "title" in fields:
                fields["title"] = str(fields["title"]).strip()[:200]
            record = self._chats.update_session(session_id, **fields)
            self.bus.publish(SessionUpdated(session=record.model_dump()))
            return record.model_dump()

        return dict(self._run(update))

    def delete_session(self, session_id: str) -> dict[str, Any]:
        def delete() -> dict[str, Any]:
            session = self._require_session(session_id)
            task = self._turns.get(session_id)
            if task is not None:
                task.cancel()
            self._chats.delete_session(session_id)
            self._broker.clear_grants(session_id)
            self.bus.publish(SessionUpdated(session=session.model_dump(), deleted=True))
            return {"deleted": session_id}

        return dict(self._run(delete))

    def search_sessions(self, query: str | None = None) -> list[dict[str, Any]]:
        """Sessions whose title or messages match every word of ``query`` (all when empty)."""

        def search() -> list[dict[str, Any]]:
            if not query or not query.strip():
                return [s.model_dump() for s in self._chats.list_sessions()]
            found: list[dict[str, Any]] = []
            for hit in search_chats(self._chats, query):
                session = self._chats.get_session(hit["session_id"])
                if session is not None:
                    found.append({**session.model_dump(), "match": dict(hit)})
            return found

        return list(self._run(search))

    def export_session(self, session_id: str, *, fmt: str = "markdown") -> dict[str, Any]:
        """The session as Markdown (readable) or JSON (complete)."""

        def export() -> dict[str, Any]:
            from tray_app.store.export import export_json, export_markdown  # on first use

            self._require_session(session_id)
            if fmt == "json":
                return {"format": "json", "data": export_json(self._chats, session_id)}
            return {"format": "markdown", "data": export_markdown(self._chats, session_id)}

        return dict(self._run(export))

    def repair_session(self, session_id: str) -> dict[str, Any]:
        """Mark what a killed run left half-done in this session as stopped or cancelled;
        answers a live process is still writing (``store.owners``) are left alone."""

        def repair() -> int:
            live_answers = getattr(self._chats, "live_answers", None)
            live = live_answers() if callable(live_answers) else set()
            return recover_session(self._chats, session_id, live=live)

        return {"changed": int(self._run(repair))}

    def _require_session(self, session_id: str) -> SessionRecord:
        session = self._chats.get_session(session_id)
        if session is None:
            raise NotFound(f"no chat {session_id!r}")
        return session


MAX_PAGE = 1000


def _page_size(limit: int) -> int:
    """A page has 1..MAX_PAGE rows whatever the caller asked."""
    return max(1, min(int(limit), MAX_PAGE))
