"""read_multiple_files: several files in one call, each answered on its own.

Every path goes through read_file's own handler (sandbox, size and binary rules, encodings), so
a refused or missing file is one failed entry and the others still arrive. The contents share
one budget of characters: each file gets an equal share of what is left, whole lines only, and
an entry cut short says where to continue (``next_start_line``) with read_file.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator

from tray_app.base.errors import SandboxViolation
from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP
from tray_app.tools.builtin.read_file import ReadFileArgs, read_file
from tray_app.tools.fs.fs_safe import os_failure, split_lines
from tray_app.tools.result import ToolResult, coded_failure, failure

MAX_FILES = 20
CONTENT_BUDGET = 12_000  # characters of content, as JSON (escapes counted), for all files
FILE_OVERHEAD = 300  # a file's path, encoding, sizes and line facts, as JSON


class ReadMultipleFilesArgs(ToolArgs):
    paths: list[str] = Field(
        min_length=1,
        max_length=MAX_FILES,
        description=f"The text files to read (1-{MAX_FILES}). " + PATH_HELP,
    )

    @field_validator("paths", mode="before")
    @classmethod
    def _one(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


def read_multiple_files(ctx: ToolContext, args: ReadMultipleFilesArgs) -> ToolResult:
    results: list[dict[str, Any]] = []
    left = CONTENT_BUDGET
    if ctx.result_chars is not None:  # the loop's size for the whole result, facts included
        left = max(0, min(left, ctx.result_chars - FILE_OVERHEAD * (len(args.paths) + 1)))
    for index, raw in enumerate(args.paths):
        if ctx.cancel.is_set():
            stopped = {"success": False, "error": "cancelled", "code": "not_run_cancelled"}
            results.append({"path": raw, **stopped})
            continue
        share = left // (len(args.paths) - index)
        one = _read_one(ctx, raw)
        if one.get("success"):
            one = _fit(one, share)
            left -= _cost(str(one.get("content", "")))
        results.append(one)
    failed = sum(1 for r in results if not r.get("success"))
    counts: dict[str, Any] = {"files": results, "read": len(results) - failed, "failed": failed}
    if failed == len(results):
        return failure("none of the files could be read", code="none_readable", **counts)
    return {"success": True, **counts}


def _read_one(ctx: ToolContext, raw: str) -> dict[str, Any]:
    try:
        result = read_file(ctx, ReadFileArgs(path=raw))
    except SandboxViolation as exc:
        result = coded_failure(exc)
    except OSError as exc:
        result = os_failure(exc, exc.filename or raw)
    if not result.get("success"):
        page: dict[str, Any] = {k: result[k] for k in ("code", "params") if k in result}
        return {"path": raw, "success": False, "error": result.get("error", "failed"), **page}
    if result.get("truncated") and result.get("line_range"):
        result["next_start_line"] = result["line_range"][1] + 1
    return result


def _cost(text: str) -> int:
    """Characters ``text`` takes in the JSON the model gets (``\n``, quotes, controls escaped)."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


def _fit(result: dict[str, Any], share: int) -> dict[str, Any]:
    """Whole lines of the content, up to ``share`` characters."""
    content = str(result.get("content", ""))
    if _cost(content) <= share:
        return result
    kept: list[str] = []
    used = 0
    for line in split_lines(content):
        cost = _cost(line)
        if used + cost > share:
            break
        kept.append(line)
        used += cost
    first = (result.get("line_range") or [1, 1])[0] or 1
    last = first + len(kept) - 1
    return {
        **result,
        "content": "".join(kept),
        "truncated": True,
        "line_range": [first, last] if kept else [first, first - 1],
        "next_start_line": last + 1,
    }


TOOL = Tool(
    name="read_multiple_files",
    description=(
        f"Read up to {MAX_FILES} text files at once; each file's content or error is returned "
        "separately (one failure does not stop the others). Long files are cut to share the "
        "space: continue them with read_file from next_start_line."
    ),
    args_model=ReadMultipleFilesArgs,
    risk=Risk.READ,
    handler=read_multiple_files,
)
