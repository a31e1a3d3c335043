"""The undo journal: the previous state of every path the agent writes or deletes.

The file tools call ``entry = journal.record(call_id=..., tool=..., path=resolved)`` before a
change, and ``journal.commit(entry)`` after it succeeded (or ``discard`` after it failed).
``record`` saves the copy and stores the entry before anything is touched; when the journal's
folder cannot keep it (full, read-only, locked) it raises ``UndoUnavailable`` so the tool refuses
before writing, unless the caller passes ``required=False`` (the user allowed changes without
undo): then the change goes ahead and ``commit`` returns the sentence "undo is not available:
..." for the result and the card. ``commit`` stores a fingerprint of the new state; undo refuses
when the path no longer matches it (the user changed it since, and undoing would destroy that).

What undo does, by the recorded before/after states (``journal_undo.py`` picks, checks and
applies it, ``snapshot.py`` and ``restore.py`` do the file work; ``journal_upkeep.py`` sweeps the
folder at start and keeps it within its budget):

=================  ===============  ==================================================
before             after            undo
=================  ===============  ==================================================
absent             file or link     remove it ("removed"), nothing else
absent             folder           remove the folders the call created, while empty
file               file             put the old content and mode back ("restored")
file, link, tree   absent           bring it back ("recreated"), a tree as a whole
=================  ===============  ==================================================

On disk (``root``, normally ``AppPaths.journal_dir``): the index ``journal.sqlite3``
(``journal_index.py``: shared safely by every process on the data folder) and
``blobs/<entry id>/`` with the saved copies, bounded by ``max_bytes`` (the oldest are dropped
first; a snapshot bigger than the whole budget is not kept and the result says so).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from tray_app.base.errors import StoreError, UndoUnavailable
from tray_app.os_reasons import os_params
from tray_app.tools.journal.journal_index import Entry, Index, IndexProblem, describe
from tray_app.tools.journal.journal_owner import owner_tag as _owner_tag
from tray_app.tools.journal.journal_undo import settle
from tray_app.tools.journal.journal_upkeep import PENDING_TTL, adopt_legacy, make_room, sweep, trim
from tray_app.tools.journal.snapshot import (
    State,
    TooLarge,
    capture,
    fingerprint,
    measure,
    same_state,
)
from tray_app.tools.journal.undo_commands import Undoing
from tray_app.undo_reasons import Reason, code_of

log = logging.getLogger(__name__)

MAX_ITEMS = 20_000
_STORAGE_ERRNOS = {errno.ENOSPC, errno.EROFS, getattr(errno, "EDQUOT", errno.ENOSPC)}
NOT_AVAILABLE = "undo is not available"
#: The "tool" of a change "undo anyway" made: the file the user had, kept so it can come back.
UNDO_ANYWAY = "undo_anyway"


class Journal(Undoing):
    """Thread-safe, durable, size-bounded record of previous states, shared across processes."""

    def __init__(self, root: Path, *, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self.problem: str | None = None  # why the index could not be opened, if it could not
        self._lock = threading.RLock()
        self._owner = _owner_tag()
        self._index: Index | None = None
        self._ghosts: dict[str, str] = {}  # entries kept nowhere -> why undo is not available
        self._mine: dict[str, float] = {}  # this object's pending entries -> when recorded
        with self._lock, contextlib.suppress(IndexProblem):
            self._open()

    def close(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None

    # -- recording ----------------------------------------------------------------------------

    def record(
        self,
        *,
        call_id: str | None,
        tool: str,
        path: Path,
        required: bool = True,
        deep: bool = True,
    ) -> str:
        """Save the current state of ``path`` before a tool changes it; return the entry id.

        ``deep=False`` (the tool's declaration says ``shallow_undo``) keeps a folder's own state
        but never copies the tree inside it. Raises ``UndoUnavailable`` when the copy cannot be
        stored and ``required`` is set.
        """
        path = Path(path)
        if not path.is_absolute():
            raise ValueError(f"the journal needs an absolute path, got {path}")
        # The parent as a real path (the final component stays as is: it may be a link).
        path = Path(os.path.realpath(path.parent)) / path.name
        entry = Entry(
            id=f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}",
            call_id=call_id,
            tool=tool,
            path=str(path),
            time=time.time(),
            before={"kind": "unknown"},
            owner=self._owner,
        )
        with self._lock:
            try:
                index = self._open()
                self._expire_mine(index)
                self._prepare(index, entry, path, deep=deep)
            except (IndexProblem, OSError) as exc:
                why = exc.reason if isinstance(exc, IndexProblem) else describe(exc, self.root)
                self._forget(entry.id)
                log.warning("journal: %s of %s: no undo copy: %s", tool, path, why)
                if required:
                    raise UndoUnavailable(_refusal(tool, why), tool=tool, reason=why) from exc
                self._ghosts[entry.id] = _note(why)
                return entry.id
            self._mine[entry.id] = entry.time
            return entry.id

    def record_move(
        self,
        *,
        call_id: str | None,
        source: Path,
        destination: Path,
        required: bool = True,
        tool: str,
    ) -> str:
        """Before a rename: nothing is copied but a file the move replaces; undo renames back."""
        source = Path(os.path.realpath(Path(source).parent)) / Path(source).name
        entry_id = self.record(call_id=call_id, tool=tool, path=destination, required=required)
        with self._lock:
            if entry_id in self._ghosts:
                return entry_id
            try:
                index = self._open()
                with index.write():
                    entry = index.get(entry_id)
                    if entry is not None:
                        entry.before["moved_from"] = str(source)
                        index.update(entry)
            except IndexProblem as exc:
                self._mine.pop(entry_id, None)
                self._forget(entry_id)
                if required:
                    raise UndoUnavailable(
                        _refusal(tool, str(exc)), tool=tool, reason=exc.reason
                    ) from exc
                self._ghosts[entry_id] = _note(exc.reason)
            return entry_id

    def _prepare(self, index: Index, entry: Entry, path: Path, *, deep: bool) -> None:
        """Store the pending row first, then the copy: the sweep never takes a copy in use."""
        problem: Reason | None = None
        try:
            if os.path.lexists(path):
                size, items = measure(path, deep=deep, max_items=MAX_ITEMS)
                if items > MAX_ITEMS:
                    raise TooLarge(
                        Reason(
                            f"it holds more than {MAX_ITEMS} files and folders",
                            "copy_too_many",
                            count=MAX_ITEMS,
                        )
                    )
                if size > self.max_bytes:
                    budget = self.max_bytes / (1024 * 1024)
                    raise TooLarge(
                        Reason(
                            f"its {size / 1e6:.1f} MB do not fit in the journal's {budget:g} MB",
                            "copy_too_large",
                            size_mb=f"{size / 1e6:.1f}",
                            budget_mb=f"{budget:g}",
                        )
                    )
                entry.size, entry.kept = size, True
        except TooLarge as exc:
            problem = _unkept(exc)
        except OSError as exc:  # the path itself cannot be read
            problem = _unkept(exc)
        with index.write():
            dropped = make_room(index, entry.size, self.max_bytes)
            index.insert(entry)
        self._drop_blobs(dropped)
        if problem is None:
            try:
                entry.before, entry.size = capture(
                    path, self._blob_dir(entry.id), deep=deep, budget=self.max_bytes
                )
            except TooLarge as exc:
                problem = _unkept(exc)
            except OSError as exc:
                if exc.errno in _STORAGE_ERRNOS or _under(exc.filename, self.root):
                    raise
                problem = _unkept(exc)
        if problem is not None:
            self._drop_blobs([entry.id])
            entry.before, entry.size, entry.kept = {"kind": "unsaved"}, 0, False
            entry.reason = problem.reworded(f"no copy was kept ({problem})")
            log.warning("journal: %s of %s not undoable: %s", entry.tool, path, entry.reason)
        with index.write():
            index.update(entry)

    def _copy_now(self, entry: Entry) -> Entry | None:
        """Before "undo anyway" replaces or removes a file changed since: a copy of it as it is
        now, as a change of its own (``undo_anyway``), so that can be undone too. None when the
        undo replaces no file (a move goes back whole; a removed file has nothing to keep).
        Raises ``OSError`` when no copy can be kept (too large, unreadable, the journal full)."""
        path = Path(entry.path)
        now = fingerprint(path)
        unchanged = entry.after is not None and same_state(now, entry.after)
        if "moved_from" in entry.before or now.get("kind") != "file" or unchanged:
            return None
        size, _ = measure(path, deep=False, max_items=1)
        if size > self.max_bytes:
            raise OSError(errno.EFBIG, f"its {size / 1e6:.1f} MB do not fit in the journal")
        copy = Entry(
            id=f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}",
            call_id=None,
            tool=UNDO_ANYWAY,
            path=str(path),
            time=time.time(),
            before={"kind": "unknown"},
        )
        try:
            copy.before, copy.size = capture(
                path, self._blob_dir(copy.id), deep=False, budget=self.max_bytes
            )
        except TooLarge as exc:
            self._drop_blobs([copy.id])
            raise OSError(errno.EFBIG, str(exc)) from exc
        except OSError:
            self._drop_blobs([copy.id])
            raise
        copy.kept = True
        return copy

    def commit(self, entry_id: str) -> str | None:
        """The change succeeded: fingerprint the new state and keep the entry.

        Returns None when the change can be undone (or changed nothing), else the sentence
        "undo is not available: ..." for the tool's result.
        """
        with self._lock:
            ghost = self._ghosts.pop(entry_id, None)
            if ghost is not None:
                return ghost
            self._mine.pop(entry_id, None)
            try:
                index = self._open()
                entry = index.get(entry_id)
            except IndexProblem as exc:
                return _note(exc.reason)
            if entry is None or entry.state != "pending":
                log.warning("journal: commit of unknown entry %s ignored", entry_id)
                return _note(Reason("the journal lost track of this change", "journal_lost_track"))
            try:
                after: State = fingerprint(Path(entry.path))
            except OSError as exc:
                after = {"kind": "unknown"}
                entry.reason = entry.reason or Reason(
                    f"its new state could not be read ({exc.strerror})",
                    "after_unreadable",
                    **os_params(exc),
                )
            settle(entry, after)
            try:
                with index.write():
                    entry.seq = index.next_seq()
                    index.update(entry)
                    dropped = trim(index)
            except IndexProblem as exc:
                detail, inner = str(exc), exc.reason
                if isinstance(inner, Reason):  # the storage problem's own code says it all
                    return _note(inner.reworded(f"the change was made, but {detail}"))
                return _note(
                    Reason(
                        f"the change was made, but {detail}",
                        "journal_failed_after_change",
                        detail=detail,
                    )
                )
            self._drop_blobs(dropped if entry.kept else [*dropped, entry.id])
            if entry.noop or not entry.reason:
                return None
            return _note(entry.reason)

    def discard(self, entry_id: str) -> None:
        """Forget an uncommitted entry (the tool failed); also done on its own after an hour."""
        with self._lock:
            self._ghosts.pop(entry_id, None)
            if self._mine.pop(entry_id, None) is not None:
                self._forget(entry_id)

    def _forget(self, entry_id: str) -> None:
        """Remove a pending row and its copy; what cannot be removed now the sweep removes."""
        with contextlib.suppress(IndexProblem):
            if self._index is not None:
                with self._index.write():
                    self._index.delete(entry_id)
        self._drop_blobs([entry_id])

    def entries(self) -> list[dict[str, Any]]:
        """Newest first, for a history view; raises ``StoreError`` when it cannot be read."""
        with self._lock:
            try:
                rows = self._open().read("WHERE state != 'pending' ORDER BY seq DESC")
            except IndexProblem as exc:
                raise StoreError(str(exc), reason_info=code_of(exc.reason)) from exc
        return [
            {
                "id": e.id,
                "seq": e.seq,
                "call_id": e.call_id,
                "tool": e.tool,
                "path": e.path,
                "time": e.time,
                "size": e.size,
                "undone": e.state == "undone",
                "undoable": e.state == "committed" and not e.reason,
                "reason": e.reason,
                "reason_info": code_of(e.reason),
            }
            for e in rows
        ]

    # -- storage ------------------------------------------------------------------------------

    def _open(self) -> Index:
        """The index, opened on first need and again after a failure (the folder may be fixed)."""
        if self._index is not None:
            return self._index
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):
                os.chmod(self.root, 0o700)
            index = Index(self.root)
        except OSError as exc:
            self.problem = describe(exc, self.root)
            raise IndexProblem(self.problem) from exc
        except IndexProblem as exc:
            self.problem = str(exc)
            raise
        try:
            adopt_legacy(index, self.root)
            sweep(index, self.root)
        except IndexProblem as exc:  # a read-only journal can still be listed
            log.warning("journal: start-up clean-up skipped: %s", exc)
        self._index, self.problem = index, None
        return index

    def _blob_dir(self, entry_id: str) -> Path:
        return self.root / "blobs" / entry_id

    def _drop_blobs(self, entry_ids: list[str]) -> None:
        for entry_id in entry_ids:
            shutil.rmtree(self._blob_dir(entry_id), ignore_errors=True)

    def _expire_mine(self, index: Index) -> None:
        cutoff = time.time() - PENDING_TTL
        for entry_id, when in list(self._mine.items()):
            if when < cutoff:
                self._mine.pop(entry_id)
                self._forget(entry_id)


def _note(why: str) -> str:
    """The result's "undo is not available: ..." sentence, keeping the reason's code."""
    text = f"{NOT_AVAILABLE}: {why}"
    return why.reworded(text) if isinstance(why, Reason) else text


def _unkept(exc: BaseException) -> Reason:
    """Why no copy was kept of the path (too large, or it could not be read)."""
    first = exc.args[0] if exc.args else None
    if isinstance(first, Reason):
        return first
    detail = getattr(exc, "strerror", None) or str(exc)
    return Reason(detail, "copy_unreadable", **os_params(exc))


def _refusal(tool: str, why: str) -> str:
    return (
        f"{tool} was refused before changing anything: undo could not be kept ({why}). "
        "Free space there or make it writable, or allow changes without undo in Settings."
    )


def _under(name: object, root: Path) -> bool:
    if not isinstance(name, (str, os.PathLike)):
        return False
    try:
        Path(os.fspath(name)).relative_to(root)
    except ValueError:
        return False
    return True
