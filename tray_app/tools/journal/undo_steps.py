"""How a file tool uses the undo journal: record before the change, then commit or discard.

``record_change`` raises ``UndoUnavailable`` when the journal cannot keep a copy and the user
has not allowed changes without undo (``Toolbox`` turns it into a failure: nothing was touched).
``commit_change`` returns the tool's result, with ``"undo": "unavailable"`` and the sentence why
when this change cannot be undone, so the model, the card and the terminal all say so.
"""

from __future__ import annotations

from pathlib import Path

from tray_app.tools.base import ToolContext
from tray_app.tools.result import ToolResult
from tray_app.undo_reasons import code_of


def record_change(ctx: ToolContext, tool: str, path: Path) -> str | None:
    """Before the change: the journal entry's id (None without a journal)."""
    if ctx.journal is None:
        return None
    return ctx.journal.record(
        call_id=ctx.call_id,
        tool=tool,
        path=path,
        required=not ctx.undo_optional,
        deep=not ctx.shallow_undo,
    )


def commit_change(ctx: ToolContext, entry: str | None, result: ToolResult) -> ToolResult:
    """After the change succeeded: the result, saying so when this change cannot be undone."""
    if ctx.journal is None or entry is None:
        return result
    note = ctx.journal.commit(entry)
    if note:
        coded = code_of(note)  # the card's and terminal's translation; kept from the model
        extra = {"card_undo_reason": coded} if coded else {}
        return {**result, "undo": "unavailable", "undoNote": note, **extra}
    return result


def discard_change(ctx: ToolContext, entry: str | None) -> None:
    """After the change failed: forget the entry and its copy."""
    if ctx.journal is not None and entry is not None:
        ctx.journal.discard(entry)
