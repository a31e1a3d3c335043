"""A running call's progress on its card, throttled: a tool or MCP server decides how often it
reports, and the page must not be flooded."""

from __future__ import annotations

import time

from tray_app.base.events import Publish, ToolCallUpdate
from tray_app.base.messages import ToolCallRecord
from tray_app.tools.base import ProgressFn

PROGRESS_EVERY = 0.25  # seconds between two progress events of one call


def progress_reporter(publish: Publish, session_id: str, record: ToolCallRecord) -> ProgressFn:
    """Publishes ``record``'s progress at most every PROGRESS_EVERY s (the final step always)."""
    last = [0.0]

    def report(done: float, total: float | None, message: str | None) -> None:
        now = time.monotonic()
        final = total is not None and done >= total
        if now - last[0] < PROGRESS_EVERY and not final:
            return
        last[0] = now
        publish(
            ToolCallUpdate(
                session_id=session_id,
                call_id=record.call_id,
                status="running",
                undoable=record.undoable,
                decision=record.decision,
                decided_by=record.decided_by,
                progress={"done": done, "total": total, "message": (message or "")[:200] or None},
            )
        )

    return report
