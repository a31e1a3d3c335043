"""Per-turn guards: the repeat guard and the damage budgets.

One ``TurnGuards`` lives as long as one turn. The repeat guard answers the same call (same tool,
same canonical JSON arguments) a third time without running it. The budgets count what the
turn's calls removed, wrote and ran; the cost of a call is read from the facts its preview
declares (``size_after`` of a write or edit, ``count`` and ``size`` of a delete, a replaced file
of a move), checked before the call so that one that would go past a budget asks the user again
in every mode and under every grant, and charged only after it ran successfully.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tray_app.base.messages import (
    AnyPreview,
    DiffPreview,
    FilePreview,
    MovePreview,
    NewFilePreview,
    TreePreview,
)

REPEAT_LIMIT = 2  # the third identical call is not run
REPEATED = "this call was already made twice in this turn; its result has not changed"

MB = 1024 * 1024


@dataclass(frozen=True)
class Budgets:
    """Limits for one turn; the defaults are the Settings defaults."""

    files_removed: int = 20
    bytes_written: int = 50 * MB
    commands: int = 10


@dataclass
class Cost:
    files_removed: int = 0
    bytes_written: int = 0
    commands: int = 0

    def __bool__(self) -> bool:
        return bool(self.files_removed or self.bytes_written or self.commands)


def call_key(name: str, arguments: Any) -> str:
    """Same tool and the same arguments, whatever their key order or spacing."""
    try:
        canonical = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        canonical = repr(arguments)
    return f"{name}\0{canonical}"


def cost_of(risk: str, preview: AnyPreview) -> Cost:
    """What a call would spend, from what its preview declares (nothing for a dry run)."""
    if preview.changes is False:
        return Cost()
    if risk == "command":
        return Cost(commands=1)
    cost = Cost()
    if risk == "destructive":
        count = preview.count if isinstance(preview, FilePreview | TreePreview) else None
        cost.files_removed = _int(count, 1)
    elif preview.deletes:  # move_file over an existing file: that file is removed
        cost.files_removed = 1
        replaced = preview.replaced_size if isinstance(preview, MovePreview) else None
        cost.bytes_written = _int(replaced, 0)
    if isinstance(preview, NewFilePreview | DiffPreview):  # the bytes written (or overwritten)
        cost.bytes_written += _int(preview.size_after, 0)
    return cost


def _int(value: Any, default: int) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else default


@dataclass
class TurnGuards:
    budgets: Budgets = field(default_factory=Budgets)
    spent: Cost = field(default_factory=Cost)
    _seen: Counter[str] = field(default_factory=Counter)

    def repeated(self, name: str, arguments: Any) -> bool:
        """Count this call; True when the same call was already made twice in this turn."""
        key = call_key(name, arguments)
        self._seen[key] += 1
        return self._seen[key] > REPEAT_LIMIT

    def over_budget(self, cost: Cost) -> dict[str, Any] | None:
        """The first budget this call would go past: ``{"name", "limit", "used", "call"}``."""
        for budget in ("files_removed", "bytes_written", "commands"):
            wanted = getattr(cost, budget)
            used, limit = getattr(self.spent, budget), getattr(self.budgets, budget)
            if wanted and used + wanted > limit:
                return {"name": budget, "limit": limit, "used": used, "call": wanted}
        return None

    def charge(self, cost: Cost) -> None:
        self.spent.files_removed += cost.files_removed
        self.spent.bytes_written += cost.bytes_written
        self.spent.commands += cost.commands


def budget_text(budget: dict[str, Any]) -> str:
    """The English sentence for the approval (the page and terminal translate by ``name``)."""
    name, limit, used = budget["name"], budget["limit"], budget["used"]
    if name == "files_removed":
        what = f"{used} of {limit} files removed in this turn; this call removes {budget['call']}"
    elif name == "bytes_written":
        what = (
            f"{used / MB:.1f} of {limit / MB:.0f} MB written in this turn; this call writes "
            f"{budget['call'] / MB:.1f} MB"
        )
    else:
        what = f"{used} of {limit} commands run in this turn"
    return f"Over this turn's budget ({what}). Asking again, whatever the mode or grants."
