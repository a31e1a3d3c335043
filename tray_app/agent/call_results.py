"""What a call's answer holds for whom: the model's view of a result (``for_model``), and the
answers of calls that were not run (tools off, the user's "no", a preview that says the call
cannot be done). Failures carry their ``tool_errors`` code, so the card says them in the user's
language while the model reads the English sentence."""

from __future__ import annotations

from typing import Any, cast

from tray_app.base.messages import ErrorPreview
from tray_app.tool_errors import TOOL_ERROR_CODES, ToolErrorCode
from tray_app.tools.result import ToolResult, failure

# Result keys only the page reads.
PAGE_ONLY = frozenset({"code", "params"})


def for_model(result: dict[str, Any]) -> dict[str, Any]:
    """What the model receives of a result: no ``card_*`` keys (an MCP tool's images), and no
    failure ``code``/``params`` (the card's translation), also on each of read_multiple_files'
    files; the English sentences stay."""
    out = {k: v for k, v in result.items() if not k.startswith("card_") and k not in PAGE_ONLY}
    files = out.get("files")
    if isinstance(files, list):
        out["files"] = [
            {k: v for k, v in f.items() if k not in PAGE_ONLY} if isinstance(f, dict) else f
            for f in files
        ]
    return out


def tools_disabled() -> ToolResult:
    return failure("tools are disabled", code="tools_disabled")


#: A call the user did not let run: the model's words and the card's code, by decision. One
#: sentence that says who said no and why, and that asking again gets the same answer.
NOT_RUN: dict[str, tuple[str, ToolErrorCode]] = {
    "denied": (
        "the user denied this call; do not retry it, ask the user or take another way",
        "not_run_denied",
    ),
    "timeout": (
        "the user did not answer within the confirmation timeout, which counts as a denial; "
        "do not retry it",
        "not_run_timeout",
    ),
    "cancelled": ("cancelled", "not_run_cancelled"),
}


def not_run(name: str, decision: str) -> ToolResult:
    """The answer for a call the user did not approve (``decision``: denied, timeout, ...)."""
    why, code = NOT_RUN[decision]
    return failure(f"{name} was not run: {why}", code=code)


def refused_read_only(name: str) -> ToolResult:
    """The answer for a change asked for while the user keeps the app in Read only mode."""
    return failure(
        f"{name} was not run: the user has the app in Read only mode, which refuses every "
        "change; do not retry it, say what you would change instead",
        code="read_only_mode",
        params={"tool": name},
    )


def denied_by_rule(name: str, folder: str | None) -> ToolResult:
    """The answer for a call a lasting deny rule of the user refuses, without asking."""
    where = f" in {folder}" if folder else ""
    return failure(
        f"{name} was not run: the user's permission rules deny {name}{where}; "
        "do not retry it, ask the user or take another way",
        code="not_run_rule_folder" if folder else "not_run_rule",
        params={"tool": name, "folder": folder} if folder else {"tool": name},
    )


def refused(name: str, preview: ErrorPreview) -> ToolResult:
    """The failure for a call whose preview says it cannot run, with the preview's code."""
    text = preview.text or "refused by the sandbox policy"
    code = preview.code
    if code in TOOL_ERROR_CODES:
        return failure(text, code=cast("ToolErrorCode", code), params=preview.params)
    return failure(text, code="failed_unexpectedly", params={"tool": name, "detail": text})
