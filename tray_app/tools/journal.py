"""The undo journal: the previous state of every path the agent writes or deletes.

The file tools call ``entry = journal.record(call_id=..., tool=..., path=resolved)`` before a
change and ``journal.commit(entry)`` after it succeeded; an entry never committed (the tool
failed) is dropped. Commit stores a fingerprint of the new state, and undo refuses when the path
no longer matches it: the user (or another program) changed it since, and undoing would destroy
their work.

What undo does, by the recorded before/after states (``snapshot.py`` and ``restore.py`` do
the file work):

=================  ===============  ==================================================
before             after            undo
=================  ===============  ==================================================
absent             file or link     remove it ("removed"), nothing else
absent             folder           remove the folders the call created, while empty
file               file             put the old content and mode back ("restored")
file, link, tree   absent           bring it back ("recreated"), a tree as a whole
=================  ===============  ==================================================

On disk (``root``, normally ``AppPaths.journal_dir``): ``index.json``, rewritten atomically on
every change, and ``blobs/<entry id>/`` with the saved copies. The copies are bounded by
``max_bytes``: the oldest are dropped first; a snapshot bigger than the whole budget is not kept
(the entry says why undo is impossible). One ``Journal`` per root: two processes sharing a
root would drop each other's uncommitted copies at start-up.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from tray_app.tools.restore import (
    UndoRefused,
    move_back,
    remove_created_dirs,
    remove_file,
    restore_file,
    restore_symlink,
    restore_tree,
)
from tray_app.tools.snapshot import State, TooLarge, capture, fingerprint, measure, same_state

log = logging.getLogger(__name__)

INDEX_VERSION = 1
MAX_ENTRIES = 1000
MAX_ITEMS = 20_000
PENDING_TTL = 3600.0
SHALLOW_TOOLS = frozenset({"write_file", "create_directory"})  # never copy a folder's tree


@dataclass
class _Entry:
    id: str
    seq: int
    call_id: str | None
    tool: str
    path: str
    time: float
    before: State
    after: State | None = None
    state: str = "pending"  # pending | committed | undone
    size: int = 0  # bytes of saved copies on disk
    reason: str | None = None  # set when the entry cannot be undone
    noop: bool = False  # the call changed nothing undo could reverse


class Journal:
    """Thread-safe, durable, size-bounded record of previous states."""

    def __init__(self, root: Path, *, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self._lock = threading.RLock()
        self._entries: list[_Entry] = []  # committed and undone, oldest first
        self._pending: dict[str, _Entry] = {}
        self._next_seq = 1
        self.root.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(self.root, 0o700)
        self._load()

    # -- recording ----------------------------------------------------------------------------

    def record(self, *, call_id: str | None, tool: str, path: Path) -> str:
        """Save the current state of ``path`` before a tool changes it; return the entry id."""
        path = Path(path)
        if not path.is_absolute():
            raise ValueError(f"the journal needs an absolute path, got {path}")
        # The parent as a real path (the final component stays as is: it may be a link).
        path = Path(os.path.realpath(path.parent)) / path.name
        with self._lock:
            self._expire_pending()
            entry = _Entry(
                id=f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}",
                seq=self._next_seq,
                call_id=call_id,
                tool=tool,
                path=str(path),
                time=time.time(),
                before={"kind": "unknown"},
            )
            self._next_seq += 1
            self._snapshot(entry, path, deep=tool not in SHALLOW_TOOLS)
            self._pending[entry.id] = entry
            return entry.id

    def record_move(self, *, call_id: str | None, source: Path, destination: Path) -> str:
        """Before a rename: nothing is copied but a file the move replaces; undo renames back."""
        source = Path(os.path.realpath(Path(source).parent)) / Path(source).name
        entry_id = self.record(call_id=call_id, tool="move_file", path=destination)
        with self._lock:
            self._pending[entry_id].before["moved_from"] = str(source)
            return entry_id

    def _snapshot(self, entry: _Entry, path: Path, *, deep: bool) -> None:
        budget_mb = self.max_bytes / (1024 * 1024)
        blob_dir = self._blob_dir(entry.id)
        try:
            if os.path.lexists(path):
                size, items = measure(path, deep=deep, max_items=MAX_ITEMS)
                if items > MAX_ITEMS:
                    raise TooLarge(f"it holds more than {MAX_ITEMS} files and folders")
                if size > self.max_bytes:
                    raise TooLarge(
                        f"its {size / 1e6:.1f} MB do not fit in the journal's {budget_mb:g} MB"
                    )
                self._make_room(size)
            entry.before, entry.size = capture(path, blob_dir, deep=deep, budget=self.max_bytes)
        except (TooLarge, OSError) as exc:
            shutil.rmtree(blob_dir, ignore_errors=True)
            why = str(exc) if isinstance(exc, TooLarge) else f"{exc.strerror or exc}"
            entry.before, entry.size = {"kind": "unsaved"}, 0
            entry.reason = f"no copy was kept ({why})"
            log.warning("journal: %s of %s not undoable: %s", entry.tool, path, entry.reason)

    def commit(self, entry_id: str) -> None:
        """The change succeeded: fingerprint the new state and keep the entry."""
        with self._lock:
            entry = self._pending.pop(entry_id, None)
            if entry is None:
                log.warning("journal: commit of unknown entry %s ignored", entry_id)
                return
            path = Path(entry.path)
            try:
                entry.after = fingerprint(path)
            except OSError as exc:
                entry.after = {"kind": "unknown"}
                entry.reason = entry.reason or f"its new state could not be read ({exc.strerror})"
            entry.state = "committed"
            before, after = entry.before.get("kind"), entry.after.get("kind")
            if (before, after) in (("absent", "absent"), ("dir", "dir")):
                entry.noop = True
                entry.reason = f"nothing to undo: {path} was not changed"
            elif (
                entry.reason is None
                and "moved_from" not in entry.before
                and not _supported(str(before), str(after))
            ):
                entry.reason = f"a change from {before} to {after} cannot be undone"
            if entry.reason:
                self._drop_blobs(entry)
            self._entries.append(entry)
            self._trim()
            self._save()

    def discard(self, entry_id: str) -> None:
        """Forget an uncommitted entry (the tool failed); also done on its own after an hour."""
        with self._lock:
            entry = self._pending.pop(entry_id, None)
            if entry is not None:
                self._drop_blobs(entry)

    # -- undo -----------------------------------------------------------------------------

    def undo_last(self) -> dict[str, Any]:
        """Undo the newest change that is not undone yet."""
        with self._lock:
            for entry in reversed(self._entries):
                if entry.state == "committed" and not entry.noop:
                    return self._undo(entry)
            return {"success": False, "error": "nothing to undo"}

    def undo(self, call_id: str) -> dict[str, Any]:
        """Undo what one tool call changed (newest first if it changed several paths)."""
        with self._lock:
            mine = [e for e in reversed(self._entries) if e.call_id == call_id and not e.noop]
            todo = [e for e in mine if e.state == "committed"]
            if not todo:
                why = "it was already undone" if mine else "the journal has no change from it"
                return {"success": False, "error": f"nothing to undo for call {call_id}: {why}"}
            result: dict[str, Any] = {}
            for entry in todo:
                result = self._undo(entry)
                if not result["success"]:
                    return result
            return result

    def can_undo(self, call_id: str) -> bool:
        """Whether an Undo button makes sense (cheap: does not look at the file system)."""
        with self._lock:
            return any(
                e.call_id == call_id and e.state == "committed" and not e.noop and not e.reason
                for e in self._entries
            )

    def entries(self) -> list[dict[str, Any]]:
        """Newest first, for a history view."""
        with self._lock:
            return [
                {
                    "id": e.id,
                    "call_id": e.call_id,
                    "tool": e.tool,
                    "path": e.path,
                    "time": e.time,
                    "size": e.size,
                    "undone": e.state == "undone",
                    "undoable": e.state == "committed" and not e.reason,
                    "reason": e.reason,
                }
                for e in reversed(self._entries)
            ]

    def _undo(self, entry: _Entry) -> dict[str, Any]:
        path = Path(entry.path)
        if entry.reason:
            return {
                "success": False,
                "error": f"cannot undo {entry.tool} of {path}: {entry.reason}",
            }
        try:
            current = fingerprint(path)
            if entry.after is None or not same_state(current, entry.after):
                raise UndoRefused(_changed_message(path, current, entry.after))
            action = self._apply(entry, path)
        except UndoRefused as exc:
            return {"success": False, "error": str(exc)}
        except OSError as exc:
            return {"success": False, "error": f"undo of {path} failed: {exc.strerror or exc}"}
        entry.state = "undone"
        self._drop_blobs(entry)
        self._save()
        return {
            "success": True,
            "path": str(path),
            "action": action,
            "call_id": entry.call_id,
            "tool": entry.tool,
        }

    def _apply(self, entry: _Entry, path: Path) -> str:
        before = entry.before
        kind, after = before["kind"], (entry.after or {}).get("kind")
        blobs = self._blob_dir(entry.id)
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

    # -- storage ------------------------------------------------------------------------------

    def _blob_dir(self, entry_id: str) -> Path:
        return self.root / "blobs" / entry_id

    def _drop_blobs(self, entry: _Entry) -> None:
        shutil.rmtree(self._blob_dir(entry.id), ignore_errors=True)
        entry.size = 0

    def _make_room(self, needed: int) -> None:
        """Drop the oldest saved copies until ``needed`` more bytes fit in the budget."""
        used = sum(e.size for e in self._entries) + sum(e.size for e in self._pending.values())
        dropped = False
        for entry in self._entries:
            if used + needed <= self.max_bytes:
                break
            if entry.size and entry.state == "committed":
                used -= entry.size
                self._drop_blobs(entry)
                mb = self.max_bytes / (1024 * 1024)
                entry.reason = f"its saved copy was dropped to keep the journal under {mb:g} MB"
                dropped = True
        if dropped:
            self._save()

    def _trim(self) -> None:
        while len(self._entries) > MAX_ENTRIES:
            self._drop_blobs(self._entries.pop(0))

    def _expire_pending(self) -> None:
        cutoff = time.time() - PENDING_TTL
        for entry_id, entry in list(self._pending.items()):
            if entry.time < cutoff:
                self._pending.pop(entry_id)
                self._drop_blobs(entry)

    def _save(self) -> None:
        data = {
            "version": INDEX_VERSION,
            "next_seq": self._next_seq,
            "entries": [asdict(e) for e in self._entries],
        }
        fd, temp = tempfile.mkstemp(dir=self.root, prefix=".index-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temp, self.root / "index.json")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        if os.name == "posix":
            dir_fd = os.open(self.root, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def _load(self) -> None:
        index = self.root / "index.json"
        try:
            data = json.loads(index.read_text(encoding="utf-8"))
            known = {f.name for f in fields(_Entry)}
            entries = [
                _Entry(**{k: v for k, v in raw.items() if k in known}) for raw in data["entries"]
            ]
            self._next_seq = int(data["next_seq"])
        except FileNotFoundError:
            entries = []
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning("journal index %s unreadable (%s); starting a new one", index, exc)
            with contextlib.suppress(OSError):
                index.replace(index.with_name(f"index.corrupt-{int(time.time())}.json"))
            entries = []
        self._entries = [e for e in entries if e.state in ("committed", "undone")]
        self._next_seq = max([self._next_seq, *(e.seq + 1 for e in self._entries)])
        keep = {e.id for e in self._entries if e.size}
        blobs = self.root / "blobs"
        if blobs.is_dir():  # copies of calls that never committed (a crash mid-call)
            for child in blobs.iterdir():
                if child.name not in keep:
                    shutil.rmtree(child, ignore_errors=True)
        for stray in self.root.glob(".index-*.tmp"):
            with contextlib.suppress(OSError):
                stray.unlink()


def _supported(before: str, after: str) -> bool:
    if before == "absent":
        return after in ("file", "symlink", "dir")
    if before == "file":
        return after in ("file", "absent")
    return before in ("symlink", "tree") and after == "absent"


def _changed_message(path: Path, current: State, expected: State | None) -> str:
    kind = current.get("kind")
    if expected is not None and expected.get("kind") == "absent":
        return (
            f"changed since: something was created at {path} after the agent's change; not undone"
        )
    if kind == "absent":
        return f"changed since: {path} was removed after the agent's change; not undone"
    if kind == "symlink":
        return f"changed since: {path} is now a symbolic link; not undone"
    return f"changed since: {path} was modified after the agent's change; not undone"
