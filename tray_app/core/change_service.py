"""What the agent changed on disk, and undoing it, through the undo journal.

The journal answers with ``{"success": false, "error": ..., "code": ..., "params": ...}``; here
that becomes ``ChangeNotFound`` (no such change) or ``UndoFailed`` (already undone, changed
since, nothing to undo), both carrying the code and params, so a
successful result always means something was put back. Runs on the core thread only.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Protocol, cast, runtime_checkable

from tray_app.base.errors import ChangeNotFound, UndoFailed
from tray_app.base.events import Event, UndoApplied
from tray_app.core.results import Json, TurnUndone, Undone
from tray_app.core.turns import TurnFactory
from tray_app.tool_errors import TOOL_ERROR_CODES, ToolErrorCode


@runtime_checkable
class CallOrigins(Protocol):
    """A chat store that can say which chat and turn a tool call belongs to (SQLite can)."""

    def call_origins(self, call_ids: Collection[str]) -> dict[str, dict[str, str | None]]: ...


class ChangeService:
    def __init__(
        self, factory: TurnFactory, publish: Callable[[Event], None], chats: object = None
    ) -> None:
        self._factory = factory
        self._publish = publish
        self._chats = chats

    def changes(self) -> list[Json]:
        """What the agent changed, newest first, from every process on this data folder; each
        with its chat and turn where the chat is stored (the history groups a turn's changes)."""
        entries = self._factory.journal().entries()
        if isinstance(self._chats, CallOrigins):
            origins = self._chats.call_origins([e["call_id"] for e in entries if e.get("call_id")])
            for entry in entries:
                entry.update(origins.get(str(entry.get("call_id")), {}))
        return entries

    def undo_last(self) -> Undone:
        """Undo the agent's most recent change to a file or folder."""
        return self._done(self._factory.journal().undo_last())

    def undo_call(self, call_id: str) -> Undone:
        """Undo the change of one tool call (a card's Undo button)."""
        return self._done(self._factory.journal().undo(call_id))

    def undo_change(self, change_id: str) -> Undone:
        """Undo one change by its number in ``changes()`` (or its entry or call id)."""
        return self._done(self._factory.journal().undo_change(change_id))

    def undo_turn(
        self, turn: str, *, force: bool = False, force_ids: Collection[str] = ()
    ) -> TurnUndone:
        """Undo every change of one turn (``"last"``: the turn of the newest change), newest
        first; what could not be undone is reported, never overwritten unless ``force`` (all)
        or ``force_ids`` (the changes, by entry id, the user chose to undo anyway)."""
        entries = self.changes()
        turn_id, mine = _turn_entries(entries, turn.strip())
        if not mine:
            message = f"no change in the journal comes from turn {turn}"
            raise ChangeNotFound(message, code="undo_turn_unknown", turn=turn)
        call_ids = [str(e["call_id"]) for e in mine if e.get("call_id")]
        forced: bool | Collection[str] = True if force else list(force_ids)
        report = self._factory.journal().undo_calls(call_ids, force=forced)
        if not report.get("success"):
            self._done(report)  # raises: the journal could not be read
        outcomes: list[Json] = list(report.get("outcomes") or [])
        if not outcomes:
            message = f"every change of turn {turn_id} was already undone"
            raise UndoFailed(message, code="undo_turn_already_undone", turn=turn_id)
        for outcome in outcomes:
            if outcome.get("success"):
                self._publish(
                    UndoApplied(
                        call_id=outcome.get("call_id"),
                        path=outcome.get("path"),
                        action=str(outcome.get("action", "")),
                        turn_id=turn_id,
                    )
                )
        undone = sum(1 for o in outcomes if o.get("success"))
        result: TurnUndone = {
            "turn_id": turn_id,
            "session_id": mine[0].get("session_id"),
            "session_title": mine[0].get("session_title"),
            "turn_prompt": mine[0].get("turn_prompt"),
            "undone": undone,
            "left": len(outcomes) - undone,
            "already": int(report.get("already") or 0),
            "outcomes": outcomes,
        }
        if report.get("warning"):
            result["warning"] = str(report["warning"])
            result["warning_reason"] = str(report.get("warning_reason") or "")
        return result

    def _done(self, result: dict[str, Any]) -> Undone:
        if not result.get("success"):
            why = str(result.get("error") or "nothing to undo")
            code = str(result.get("code") or "undo_nothing")
            code = code if code in TOOL_ERROR_CODES else "undo_nothing"
            raw = result.get("params")
            params: dict[str, Any] = raw if isinstance(raw, dict) else {}
            failed = ChangeNotFound if result.get("missing") else UndoFailed
            raise failed(why, code=cast(ToolErrorCode, code), **params)
        self._publish(
            UndoApplied(
                call_id=result.get("call_id"),
                path=result.get("path"),
                action=str(result.get("action", "")),
            )
        )
        return cast(Undone, dict(result))


#: The shortest start of a turn's id the terminal may name it by.
MIN_PREFIX = 4


def _turn_entries(entries: list[Json], turn: str) -> tuple[str, list[Json]]:
    """The turn ``turn`` names (``last``, its id, or a start of it naming one turn) and its
    changes; ``(turn, [])`` when none."""
    if turn == "last":
        turn = next((str(e["turn_id"]) for e in entries if e.get("turn_id")), "")
    exact = [e for e in entries if e.get("turn_id") == turn]
    if exact or len(turn) < MIN_PREFIX:
        return turn, exact
    named = {str(e["turn_id"]) for e in entries if str(e.get("turn_id") or "").startswith(turn)}
    if len(named) != 1:
        return turn, []
    (whole,) = named
    return whole, [e for e in entries if e.get("turn_id") == whole]
