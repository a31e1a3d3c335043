"""The audit log: one JSON line per finished tool call, in ``log_dir/audit.jsonl``.

It answers "what did the model do to my files, and who allowed it" without holding the files'
contents: arguments are summarised (paths, sizes, a truncated command), never copied. Rotated by
size. The logger is private to each ``AuditLog`` (not in logging's registry, no propagation),
so the application log and the tests' caplog never see these lines twice.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
from datetime import datetime, timezone
from typing import Any

from tray_app.base.messages import ToolCallRecord
from tray_app.base.paths import AppPaths

AUDIT_FILE = "audit.jsonl"
TEXT_CHARS = 200  # commands, queries, patterns
PATH_CHARS = 1000
ERROR_CHARS = 300
LIST_ITEMS = 20

# Argument names whose text is kept (truncated); any other text is reduced to its size.
_KEPT_TEXT = {
    "path",
    "paths",
    "source",
    "destination",
    "src",
    "dst",
    "cwd",
    "directory",
    "query",
    "pattern",
    "glob",
    "search_type",
    "encoding",
    "filter_extension",
    "file_extensions",
    "command",
    "name",
}


def summarize_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """Paths and commands (truncated), numbers and flags; any other text becomes its size."""
    return {key: _summarize(key, value, depth=0) for key, value in arguments.items()}


def _summarize(key: str, value: Any, *, depth: int) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        if key in _KEPT_TEXT:
            limit = PATH_CHARS if key not in ("command", "query", "pattern") else TEXT_CHARS
            return _truncate(value, limit)
        return {"bytes": len(value.encode("utf-8", "surrogatepass"))}
    if isinstance(value, (list, tuple)):
        items = [_summarize(key, item, depth=depth + 1) for item in value[:LIST_ITEMS]]
        if len(value) > LIST_ITEMS:
            items.append(f"... {len(value) - LIST_ITEMS} more")
        return items
    if isinstance(value, dict) and depth < 2:
        return {str(k): _summarize(str(k), v, depth=depth + 1) for k, v in value.items()}
    return {"type": type(value).__name__}


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more)"


def audit_entry(record: ToolCallRecord) -> dict[str, Any]:
    """The audit line for a tool call, as data."""
    entry: dict[str, Any] = {
        "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "session": record.session_id,
        "call_id": record.call_id,
        "tool": record.name,
        "args": summarize_arguments(record.arguments),
        "risk": record.risk,
        "decision": record.decision,
        "decided_by": record.decided_by,
        "status": record.status,
        "duration_ms": record.duration_ms,
    }
    result = record.result or {}
    if result.get("success") is False and result.get("error"):
        entry["error"] = _truncate(str(result["error"]), ERROR_CHARS)
    return entry


class AuditLog:
    """Appends audit lines; build one at start and call ``record`` when a call finishes."""

    def __init__(
        self, paths: AppPaths, *, max_bytes: int = 2_000_000, backup_count: int = 5
    ) -> None:
        self.path = paths.log_dir / AUDIT_FILE
        self._handler = logging.handlers.RotatingFileHandler(
            self.path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8", delay=True
        )
        self._handler.setFormatter(logging.Formatter("%(message)s"))
        self._logger = logging.Logger("metona.audit", logging.INFO)  # private: not registered
        self._logger.propagate = False
        self._logger.addHandler(self._handler)

    def record(self, record: ToolCallRecord) -> None:
        """Write one line; a failure to write is logged, never raised into the agent loop."""
        line = json.dumps(audit_entry(record), ensure_ascii=False, default=str)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            logging.getLogger(__name__).warning("cannot write the audit log: %s", exc)
            return
        self._logger.info(line)

    def close(self) -> None:
        self._handler.close()
