"""What the approval dialog shows before a change (SPEC section 6).

Previews run the same plan as the tool, so a call that would fail is refused before the user is
asked (``Toolbox.preview`` turns a failure into ``kind: error``). Every text is bounded.
"""

from __future__ import annotations

import difflib
import os
import stat
from typing import Any

from tray_app.tools.base import ToolContext, ToolResult
from tray_app.tools.file_args import CreateDirectoryArgs, DeleteFileArgs, WriteFileArgs
from tray_app.tools.fs_safe import NotReadable, human_size, looks_binary, read_regular
from tray_app.tools.fs_write import DeletePlan, WritePlan, plan_create, plan_delete, plan_write

PREVIEW_MAX_CHARS = 20_000
NEW_FILE_LINES = 40
TREE_MAX_LINES = 200
DIFF_MAX_BYTES = 1024 * 1024
DIFF_MAX_LINE_PRODUCT = 25_000_000  # difflib is quadratic in the worst case


def _bounded(lines: list[str], *, max_lines: int | None = None) -> tuple[str, bool]:
    """Join lines up to ``max_lines`` and ``PREVIEW_MAX_CHARS``; say whether anything was cut."""
    out: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if max_lines is not None and index >= max_lines:
            return "".join(out), True
        if used + len(line) > PREVIEW_MAX_CHARS:
            out.append(line[: max(0, PREVIEW_MAX_CHARS - used)])
            return "".join(out), True
        out.append(line)
        used += len(line)
    return "".join(out), False


def write_preview(ctx: ToolContext, args: WriteFileArgs) -> dict[str, Any] | ToolResult:
    plan = plan_write(ctx.policy, args)
    if not isinstance(plan, WritePlan):
        return plan
    new_lines = args.content.splitlines(keepends=True)
    base: dict[str, Any] = {
        "path": str(plan.target),
        "exists": plan.old is not None,
        "size_before": plan.old.st_size if plan.old is not None else None,
        "size_after": len(plan.data),
    }
    if plan.old is None:
        text, cut = _bounded(new_lines, max_lines=NEW_FILE_LINES)
        return {"kind": "new_file", **base, "text": text, "truncated": cut}
    old_text = _old_text(plan)
    if old_text is None:
        note = (
            f"(the current file, {human_size(plan.old.st_size)}, is binary or too large to "
            f"compare; it will be replaced by {human_size(len(plan.data))} of text)\n"
        )
        text, cut = _bounded([note, *new_lines], max_lines=NEW_FILE_LINES + 1)
        return {"kind": "diff", **base, "text": text, "truncated": cut}
    old_lines = old_text.splitlines(keepends=True)
    if len(old_lines) * len(new_lines) > DIFF_MAX_LINE_PRODUCT:
        note = f"(too many lines to compare: {len(old_lines)} now, {len(new_lines)} after)\n"
        return {"kind": "diff", **base, "text": note, "truncated": True}
    name = str(plan.target)
    diff = difflib.unified_diff(old_lines, new_lines, fromfile=name, tofile=name)
    lines = [line if line.endswith("\n") else line + "\n" for line in diff]
    if not lines:
        return {"kind": "diff", **base, "text": "(no change)\n", "truncated": False}
    text, cut = _bounded(lines)
    return {"kind": "diff", **base, "text": text, "truncated": cut}


def _old_text(plan: WritePlan) -> str | None:
    try:
        data, _ = read_regular(plan.target, DIFF_MAX_BYTES)
    except (OSError, NotReadable):
        return None
    if len(data) > DIFF_MAX_BYTES or looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")


def delete_preview(ctx: ToolContext, args: DeleteFileArgs) -> dict[str, Any] | ToolResult:
    plan = plan_delete(ctx.policy, args)
    if not isinstance(plan, DeletePlan):
        return plan
    if plan.kind != "directory":
        what = {"symlink": "symbolic link (only the link is removed, not what it points to)"}
        line = f"{plan.target}  ({what.get(plan.kind, plan.kind)}, {human_size(plan.size)})\n"
        return {
            "kind": "file",
            "path": str(plan.target),
            "exists": True,
            "size": plan.size,
            "text": line,
            "count": 1,
        }
    lines = [f"{plan.target}{os.sep}\n"]
    for entry in sorted(plan.entries, key=lambda e: [p.casefold() for p in e.rel.split(os.sep)]):
        indent = "  " * entry.depth
        suffix = os.sep if entry.kind == "directory" else ""
        extra = f"  ({human_size(entry.info.st_size)})" if stat.S_ISREG(entry.info.st_mode) else ""
        if entry.kind == "symlink":
            extra = "  (link; only the link is removed)"
        lines.append(f"{indent}{entry.name}{suffix}{extra}\n")
    text, cut = _bounded(lines, max_lines=TREE_MAX_LINES)
    if cut:
        text += f"… {len(lines)} lines in all\n"
    return {
        "kind": "tree",
        "path": str(plan.target),
        "exists": True,
        "size": plan.size,
        "text": text,
        "count": len(plan.entries) + 1,
        "truncated": cut,
    }


def create_preview(ctx: ToolContext, args: CreateDirectoryArgs) -> dict[str, Any] | ToolResult:
    plan = plan_create(ctx.policy, args)
    if isinstance(plan, dict):
        return plan
    target, exists = plan
    return {"kind": "path", "path": str(target), "exists": exists}
