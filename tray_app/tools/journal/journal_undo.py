"""Undo journal, undoing side: put back what one committed entry changed.

``Undoing`` (the Journal's undo commands) picks the entries under the index's write lock;
``undo_entry`` checks that the path is still as the agent's change left it (else the user changed
it since, and undoing would destroy that) and has ``restore.py`` do the file work.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from tray_app.tool_errors import ToolErrorCode, clean_params
from tray_app.tools.fs.fs_safe import os_error_code
from tray_app.tools.journal.journal_index import Entry, Index, IndexProblem
from tray_app.tools.journal.restore import (
    UndoRefused,
    move_back,
    remove_created_dirs,
    remove_file,
    restore_file,
    restore_symlink,
    restore_tree,
)
from tray_app.tools.journal.snapshot import State, fingerprint, same_state
from tray_app.undo_reasons import Reason, flat

#: Refusals the user may override ("undo anyway"): the file was edited or removed since. A
#: path that became a link, or something created where the change deleted, is never replaced.
FORCEABLE = frozenset({"undo_changed_modified", "undo_changed_removed"})


def undo_entry(entry: Entry, blobs: Path, *, force: bool = False) -> dict[str, Any]:
    """Put back what one committed entry changed, if the path is still as the change left it.

    ``force`` (the user's word, after being told) undoes a path edited or removed since anyway.
    On success the entry is marked undone (the caller stores it); never raises for a refusal.
    """
    path = Path(entry.path)
    if entry.reason:
        return refused(
            f"cannot undo {entry.tool} of {path}: {entry.reason}",
            "undo_not_undoable",
            tool=entry.tool,
            path=path,
            **flat(entry.reason),
        )
    try:
        current = fingerprint(path)
        if entry.after is None or not same_state(current, entry.after):
            changed = _changed(path, current, entry.after)
            if not force or entry.after is None or changed.code not in FORCEABLE:
                raise changed
        action = _apply_forced(entry, path, current) or _apply(entry, path, blobs)
    except UndoRefused as exc:
        return refused(str(exc), exc.code, **exc.params)
    except OSError as exc:
        why = exc.strerror or str(exc)
        code, params = os_error_code(exc, path)  # said in the user's language by its errno
        if code == "os_error":
            return refused(f"undo of {path} failed: {why}", "undo_os_error", path=path, reason=why)
        return refused(f"undo of {path} failed: {why}", code, **params)
    entry.state, entry.kept, entry.size = "undone", False, 0
    return {
        "success": True,
        "path": str(path),
        "action": action,
        "call_id": entry.call_id,
        "tool": entry.tool,
    }


def _apply_forced(entry: Entry, path: Path, current: State) -> str | None:
    """A forced undo of something the change created and that is gone since: nothing to do."""
    created = entry.before.get("kind") == "absent" and "moved_from" not in entry.before
    if created and current.get("kind") == "absent":
        return "removed"
    return None


def _apply(entry: Entry, path: Path, blobs: Path) -> str:
    before = entry.before
    kind, after = before["kind"], (entry.after or {}).get("kind")
    if "moved_from" in before:
        move_back(path, before, blobs)
        return "moved back"
    if kind == "absent" and after == "dir":
        remove_created_dirs(path, [str(p) for p in before.get("missing", [str(path)])])
        return "removed"
    if kind == "absent":
        remove_file(path)
        return "removed"
    if kind == "file" and after == "file":
        restore_file(path, before, blobs, replace=True)
        return "restored"
    if kind == "file":
        restore_file(path, before, blobs, replace=False)
    elif kind == "symlink":
        restore_symlink(path, str(before["target"]))
    else:
        restore_tree(path, before, blobs)
    return "recreated"


def supported(before: str, after: str) -> bool:
    """Whether a change from one kind of state to another is one undo can reverse."""
    if before == "absent":
        return after in ("file", "symlink", "dir")
    if before == "file":
        return after in ("file", "absent")
    return before in ("symlink", "tree") and after == "absent"


def refused(message: str, code: ToolErrorCode, **params: object) -> dict[str, Any]:
    """An undo that was not done: the English sentence (for the log and ``--json``) and the
    ``code`` and ``params`` Core's ``UndoFailed`` carries to the page and the terminal."""
    return {"success": False, "error": message, "code": code, "params": clean_params(params)}


def _changed(path: Path, current: State, expected: State | None) -> UndoRefused:
    kind = current.get("kind")
    if expected is not None and expected.get("kind") == "absent":
        return UndoRefused(
            f"changed since: something was created at {path} after the agent's change; not undone",
            code="undo_changed_created",
            path=path,
        )
    if kind == "absent":
        return UndoRefused(
            f"changed since: {path} was removed after the agent's change; not undone",
            code="undo_changed_removed",
            path=path,
        )
    if kind == "symlink":
        return UndoRefused(
            f"changed since: {path} is now a symbolic link; not undone",
            code="undo_changed_link",
            path=path,
        )
    return UndoRefused(
        f"changed since: {path} was modified after the agent's change; not undone",
        code="undo_changed_modified",
        path=path,
    )


def settle(entry: Entry, after: State) -> None:
    """The committed form of a pending entry: its new state, and why undo cannot be done."""
    path = Path(entry.path)
    entry.after = after
    entry.state, entry.owner, entry.time = "committed", None, time.time()
    was, now = str(entry.before.get("kind")), str(after.get("kind"))
    if (was, now) in (("absent", "absent"), ("dir", "dir")):
        entry.noop = True
        entry.reason = Reason(
            f"nothing to undo: {path} was not changed", "nothing_changed", path=path
        )
    elif entry.reason is None and "moved_from" not in entry.before and not supported(was, now):
        entry.reason = Reason(
            f"a change from {was} to {now} cannot be undone", "change_unsupported", was=was, now=now
        )
    if entry.reason:
        entry.kept, entry.size = False, 0


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
        from tray_app.tools.journal.journal_turn import IDS_PER_QUERY, undo_turn_entries

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
                    done, outcomes = undo_turn_entries(rows, self._blob_dir, force=forced)
                    for entry in done:
                        index.update(entry)
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
