"""Undo journal, undoing side: put back what one committed entry changed.

``journal.py`` decides which entries (under the index's write lock); this module checks that the
path is still as the agent's change left it (else the user changed it since, and undoing would
destroy that) and has ``restore.py`` do the file work.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tray_app.tools.journal_index import Entry
from tray_app.tools.restore import (
    UndoRefused,
    move_back,
    remove_created_dirs,
    remove_file,
    restore_file,
    restore_symlink,
    restore_tree,
)
from tray_app.tools.snapshot import State, fingerprint, same_state


def undo_entry(entry: Entry, blobs: Path) -> dict[str, Any]:
    """Put back what one committed entry changed, if the path is still as the change left it.

    On success the entry is marked undone (the caller stores it); never raises for a refusal.
    """
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
        action = _apply(entry, path, blobs)
    except UndoRefused as exc:
        return {"success": False, "error": str(exc)}
    except OSError as exc:
        return {"success": False, "error": f"undo of {path} failed: {exc.strerror or exc}"}
    entry.state, entry.kept, entry.size = "undone", False, 0
    return {
        "success": True,
        "path": str(path),
        "action": action,
        "call_id": entry.call_id,
        "tool": entry.tool,
    }


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


def settle(entry: Entry, after: State) -> None:
    """The committed form of a pending entry: its new state, and why undo cannot be done."""
    path = Path(entry.path)
    entry.after = after
    entry.state, entry.owner, entry.time = "committed", None, time.time()
    was, now = str(entry.before.get("kind")), str(after.get("kind"))
    if (was, now) in (("absent", "absent"), ("dir", "dir")):
        entry.noop = True
        entry.reason = f"nothing to undo: {path} was not changed"
    elif entry.reason is None and "moved_from" not in entry.before and not supported(was, now):
        entry.reason = f"a change from {was} to {now} cannot be undone"
    if entry.reason:
        entry.kept, entry.size = False, 0
