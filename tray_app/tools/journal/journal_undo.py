"""Undo journal, undoing side: put back what one committed entry changed.

``undo_commands.Undoing`` (the Journal's undo commands) picks the entries under the index's
write lock; ``undo_entry`` checks that the path is still as the agent's change left it (else
the user changed it since, and undoing would destroy that) and has ``restore.py`` do the file
work.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tray_app.tool_errors import ToolErrorCode, clean_params
from tray_app.tools.fs.fs_safe import os_error_code
from tray_app.tools.journal.journal_index import Entry
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
