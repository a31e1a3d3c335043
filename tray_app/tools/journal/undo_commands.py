"""The Journal's undo commands: which committed entries to undo, under the index's write lock.

Each entry is put back by ``journal_undo.undo_entry``; a whole turn's entries by
``journal_turn.undo_turn_entries``.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from pathlib import Path
from typing import Any

from tray_app.tools.journal.journal_index import Entry, Index, IndexProblem
from tray_app.tools.journal.journal_turn import IDS_PER_QUERY, undo_turn_entries
from tray_app.tools.journal.journal_undo import refused, settle, undo_entry
from tray_app.tools.journal.snapshot import fingerprint


class Undoing:
    """The Journal's undo commands: which committed entries, under the index's write lock.

    A mixin so ``journal.py`` keeps to recording and storage; it uses only what is declared here.
    """

    _lock: threading.RLock

    def _open(self) -> Index:
        raise NotImplementedError

    def _blob_dir(self, entry_id: str) -> Path:
        raise NotImplementedError

    def _drop_blobs(self, entry_ids: list[str]) -> None:
        raise NotImplementedError

    def _copy_now(self, entry: Entry) -> Entry | None:
        raise NotImplementedError

    def undo_last(self) -> dict[str, Any]:
        """Undo the newest change (in any process) that is not undone yet."""
        query = "WHERE state = 'committed' AND noop = 0 ORDER BY seq DESC LIMIT 1"
        return self._undo_rows(query, (), lambda rows: refused("nothing to undo", "undo_nothing"))

    def undone_calls(self, call_ids: list[str]) -> set[str]:
        """Which of these tool calls' changes are all undone (and none still in force): a
        chat read again shows their cards as undone, not with an Undo that can only fail."""
        found: dict[str, bool] = {}
        with self._lock:
            for call_id in dict.fromkeys(call_ids):
                rows = self._open().read("WHERE call_id = ? AND noop = 0", (call_id,))
                states = {row.state for row in rows}
                if "undone" in states and "committed" not in states:
                    found[call_id] = True
        return set(found)

    def undo(self, call_id: str) -> dict[str, Any]:
        """Undo what one tool call changed (newest first if it changed several paths)."""

        def why(rows: list[Entry]) -> dict[str, Any]:
            if rows:
                message = f"nothing to undo for call {call_id}: it was already undone"
                return refused(message, "undo_call_already_undone", call_id=call_id)
            message = f"nothing to undo for call {call_id}: the journal has no change from it"
            return refused(message, "undo_call_unknown", call_id=call_id)

        query = "WHERE call_id = ? AND noop = 0 ORDER BY seq DESC"
        return self._undo_rows(query, (call_id,), why)

    def undo_change(self, change: str) -> dict[str, Any]:
        """Undo one change by its number (``metona-tray changes``), entry id or tool call id.

        When nothing matches, the result has ``"missing": True``.
        """
        change = change.strip().removeprefix("#")
        column = "seq" if change.isdigit() else "id"
        key: int | str = int(change) if change.isdigit() else change

        def why(rows: list[Entry]) -> dict[str, Any]:
            if rows and rows[0].noop:
                message = f"change {change} changed nothing; {rows[0].reason}"
                return refused(message, "undo_change_did_nothing", change=change)
            message = f"change {change} was already undone"
            return refused(message, "undo_change_already_undone", change=change)

        query = f"WHERE {column} = ? AND state != 'pending'"
        with self._lock:
            try:
                found = bool(self._open().read(query, (key,)))
                if not found and column == "id":
                    found = bool(self._open().read("WHERE call_id = ? AND noop = 0", (change,)))
                    if found:
                        return self.undo(change)
            except IndexProblem as exc:
                return refused(f"cannot undo: {exc}", "undo_journal_unreadable", reason=exc)
        if not found:
            message = f"no change {change} in the journal"
            return {**refused(message, "undo_change_unknown", change=change), "missing": True}
        return self._undo_rows(query, (key,), why)

    def _undo_rows(self, query: str, params: tuple[Any, ...], why: Any) -> dict[str, Any]:
        """Undo the committed rows ``query`` finds, under the index's write lock throughout."""
        done: list[Entry] = []
        result: dict[str, Any] = {}
        with self._lock:
            try:
                index = self._open()
                with index.write():
                    rows = index.read(query, params)
                    todo = [e for e in rows if e.state == "committed" and not e.noop]
                    if not todo:
                        return dict(why(rows))
                    for entry in todo:
                        result = undo_entry(entry, self._blob_dir(entry.id))
                        if not result["success"]:
                            break
                        done.append(entry)
                        index.update(entry)
            except IndexProblem as exc:
                if not done:
                    return refused(f"cannot undo: {exc}", "undo_journal_unreadable", reason=exc)
                note = f"undone, but the journal could not record it: {exc}"
                return {**result, "warning": note, "warning_reason": str(exc)}
            self._drop_blobs([e.id for e in done])
            return result

    def undo_calls(
        self, call_ids: list[str], *, force: bool | Collection[str] = False
    ) -> dict[str, Any]:
        """Undo every change of these tool calls (one turn's), newest first, each on its own.

        ``force``: True, or the entry ids to undo even though they changed since.

        ``{"outcomes": [...], "already": n}``: one outcome per change tried (``journal_turn``),
        and how many were undone before. Never raises for a refusal.
        """
        wanted = list(dict.fromkeys(call_ids))
        rows: list[Entry] = []
        done: list[Entry] = []
        outcomes: list[dict[str, Any]] = []
        warning: dict[str, str] = {}
        already = 0
        with self._lock:
            try:
                index = self._open()
                with index.write():
                    for start in range(0, len(wanted), IDS_PER_QUERY):
                        chunk = tuple(wanted[start : start + IDS_PER_QUERY])
                        marks = ", ".join("?" for _ in chunk)
                        query = f"WHERE call_id IN ({marks}) AND noop = 0 AND state != 'pending'"
                        rows.extend(index.read(query, chunk))
                    rows.sort(key=lambda e: e.seq or 0, reverse=True)
                    already = sum(1 for e in rows if e.state == "undone")
                    forced = force if isinstance(force, bool) else frozenset(force)
                    done, outcomes, copies = undo_turn_entries(
                        rows, self._blob_dir, force=forced, copy_now=self._copy_now
                    )
                    for entry in done:
                        index.update(entry)
                    for copy in copies:  # "undo anyway" can itself be undone
                        settle(copy, fingerprint(Path(copy.path)))
                        copy.seq = index.next_seq()
                        index.insert(copy)
            except IndexProblem as exc:
                if not done:
                    failed = refused(f"cannot undo: {exc}", "undo_journal_unreadable", reason=exc)
                    return {**failed, "outcomes": [], "already": 0}
                note = f"undone, but the journal could not record it: {exc}"
                warning = {"warning": note, "warning_reason": str(exc)}
            self._drop_blobs([e.id for e in done])
        return {"success": True, "outcomes": outcomes, "already": already, **warning}

    def can_undo(self, call_id: str) -> bool:
        """Whether an Undo button makes sense (cheap: does not look at the file system)."""
        with self._lock:
            try:
                rows = self._open().read(
                    "WHERE call_id = ? AND state = 'committed' AND noop = 0 AND reason IS NULL",
                    (call_id,),
                )
            except IndexProblem:
                return False
            return bool(rows)
