"""Undo journal: undo everything a turn's tool calls changed, as one action.

The turn's changes are undone newest first, each checked on its own against the state its change
left (``undo_entry``); one that cannot be undone (changed since, no copy kept) does not stop the
others, but every older change of the same path, a folder above it or a path inside it is then
left too: undoing it would act on a state the kept change depends on. Each outcome is reported,
so the user sees exactly what was put back and what was left and why.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection
from pathlib import PurePath
from typing import Any

from tray_app.tools.journal.journal_index import Entry
from tray_app.tools.journal.journal_undo import FORCEABLE, refused, undo_entry

#: Call ids per SQLite query (far below its limit on bound values).
IDS_PER_QUERY = 500


class _Kept:
    """The paths of changes left in place, and every folder above them: linear in depth."""

    def __init__(self) -> None:
        self.paths: set[PurePath] = set()
        self.above: set[PurePath] = set()

    def add(self, entry: Entry) -> None:
        for raw in _paths(entry):
            path = PurePath(raw)
            self.paths.add(path)
            self.above.update(path.parents)

    def blocking(self, entry: Entry) -> str | None:
        """The kept path this entry's undo would act on, if any."""
        for raw in _paths(entry):
            path = PurePath(raw)
            if path in self.paths or path in self.above:
                return raw
            if any(parent in self.paths for parent in path.parents):
                return raw
        return None


def _paths(entry: Entry) -> list[str]:
    moved_from = entry.before.get("moved_from")
    return [entry.path, str(moved_from)] if moved_from else [entry.path]


#: Makes a copy of a file as it is now, before "undo anyway" replaces it: the copy's entry, or
#: None when the undo replaces no file; raises ``OSError`` when no copy can be kept.
CopyNow = Callable[[Entry], "Entry | None"]


def undo_turn_entries(
    rows: list[Entry],
    blob_dir: Callable[[str], Any],
    *,
    force: bool | Collection[str],
    copy_now: CopyNow | None = None,
) -> tuple[list[Entry], list[dict[str, Any]], list[Entry]]:
    """Undo ``rows`` (newest first): the entries undone, one outcome per row tried, and the
    copies kept of files "undo anyway" replaced (each a change of its own, to be stored).

    ``force``: True, or the entry ids the user chose to undo anyway. An outcome is the undo's
    result plus ``id``, ``seq``, ``tool``, ``path`` and, for a refusal the user may override
    with ``force``, ``forceable: True``. A forced undo whose file cannot be copied first is
    refused: nothing the user wrote is lost without a way back.
    """
    done: list[Entry] = []
    copies: list[Entry] = []
    outcomes: list[dict[str, Any]] = []
    kept = _Kept()
    for entry in rows:
        if entry.state != "committed" or entry.noop:
            continue
        blocked = kept.blocking(entry)
        forced = False
        if blocked is not None:
            message = f"a later change to {blocked} in this turn was not undone; not undone"
            result = refused(message, "undo_turn_later_kept", path=blocked)
        else:
            forced = force is True or (not isinstance(force, bool) and entry.id in force)
            copy, refusal = _copied(entry, copy_now) if forced else (None, None)
            result = refusal or undo_entry(entry, blob_dir(entry.id), force=forced)
            if copy is not None and result["success"]:
                copies.append(copy)
            elif copy is not None:
                shutil.rmtree(blob_dir(copy.id), ignore_errors=True)
        about = {"id": entry.id, "seq": entry.seq, "tool": entry.tool, "path": entry.path}
        if result["success"]:
            done.append(entry)
            outcomes.append({**result, **about})
            continue
        kept.add(entry)
        forceable = not forced and result.get("code") in FORCEABLE
        outcomes.append({**result, **about, "forceable": forceable})
    return done, outcomes, copies


def _copied(entry: Entry, copy_now: CopyNow | None) -> tuple[Entry | None, dict[str, Any] | None]:
    """The copy kept before a forced undo, or the refusal when none could be kept."""
    if copy_now is None:
        return None, None
    try:
        return copy_now(entry), None
    except OSError as exc:
        why = exc.strerror or str(exc)
        message = f"no copy of {entry.path} as it is now could be kept ({why}); not undone"
        return None, refused(message, "undo_anyway_no_copy", path=entry.path, reason=why)
