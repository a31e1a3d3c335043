"""What a tool call answers: a JSON object, and the shape of a failed one.

Kept apart from ``base`` (the declaration of a tool) so the file-system helpers, the sandbox and
the journal can build answers without importing the declaration, which names the journal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tray_app.tool_errors import CodedError, ToolErrorCode, clean_params

ToolResult = dict[str, Any]


def failure(
    message: str,
    *,
    code: ToolErrorCode,
    params: Mapping[str, object] | None = None,
    **extra: Any,
) -> ToolResult:
    """A failed call: ``message`` in English for the model; ``code`` and ``params``
    (``tool_errors``) for the card and the terminal, which say it in the user's language."""
    result: ToolResult = {"success": False, "error": message, "code": code}
    if params:
        result["params"] = clean_params(params)
    result.update(extra)
    return result


def coded_failure(exc: CodedError, *, message: str | None = None, **more: object) -> ToolResult:
    """The failure for a raised ``CodedError`` (a sandbox refusal, an encoding problem...);
    ``message`` replaces its sentence and ``more`` adds to its params (the path it was about)."""
    return failure(message or str(exc), code=exc.code, params={**exc.params, **more})
