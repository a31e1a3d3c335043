"""Undo journal: undo everything a turn's tool calls changed, as one action.

The turn's changes are undone newest first, each checked on its own against the state its change
left (``undo_entry``); one that cannot be undone (changed since, no copy kept) does not stop the
others, but every older change of the same path, a folder above it or a path inside it is then
left too: undoing it would act on a state the kept change depends on. Each outcome is reported,
so the user sees exactly what was put back and what was left and why.
"""

from __future__ import annotations

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


def undo_turn_entries(
    rows: list[Entry], blob_dir: Callable[[str], Any], *, force: bool | Collection[str]
) -> tuple[list[Entry], list[dict[str, Any]]]:
    """Undo ``rows`` (newest first); the entries undone and one outcome per row tried.

    ``force``: True, or the entry ids the user chose to undo anyway. An outcome is the undo's
    result plus ``id``, ``seq``, ``tool``, ``path`` and, for a refusal the user may override
    with ``force``, ``forceable: True``.
    """
    done: list[Entry] = []
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
            result = undo_entry(entry, blob_dir(entry.id), force=forced)
        about = {"id": entry.id, "seq": entry.seq, "tool": entry.tool, "path": entry.path}
        if result["success"]:
            done.append(entry)
            outcomes.append({**result, **about})
            continue
        kept.add(entry)
        forceable = not forced and result.get("code") in FORCEABLE
        outcomes.append({**result, **about, "forceable": forceable})
    return done, outcomes
