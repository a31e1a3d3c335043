"""What the approval dialog shows before a change.

Previews run the same plan as the tool, so a call that would fail is refused before the user is
asked (``Toolbox.preview`` turns a failure into ``kind: error``). Every text is bounded.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from typing import Any

from tray_app.tools.base import ToolContext, ToolResult
from tray_app.tools.binding import file_binding
from tray_app.tools.file_args import CreateDirectoryArgs, DeleteFileArgs, WriteFileArgs
from tray_app.tools.fs_safe import NotReadable, human_size, looks_binary, read_regular, split_lines
from tray_app.tools.fs_write import (
    DeletePlan,
    WritePlan,
    delete_binding,
    plan_create,
    plan_delete,
    plan_write,
)
from tray_app.tools.text_codec import EncodingProblem, decode, detect_bom, with_newlines

PREVIEW_MAX_CHARS = 20_000
NEW_FILE_LINES = 40
TREE_MAX_LINES = 200
DIFF_MAX_BYTES = 1024 * 1024
DIFF_MAX_LINE_PRODUCT = 25_000_000
DIFF_CONTEXT = 3  # difflib is quadratic in the worst case


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
        "binding": file_binding(plan.target),
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
    text, cut = diff_text(old_text, with_newlines(args.content, "\n"), str(plan.target))
    return {"kind": "diff", **base, "text": text, "truncated": cut}


def diff_text(old_text: str, new_text: str, name: str) -> tuple[str, bool]:
    """A bounded unified diff of two texts (compared with ``\n`` line endings).

    Only the part between the common first and last lines goes to difflib (quadratic in the
    worst case), so one changed line in a long file costs no more than in a short one.
    """
    old_lines = split_lines(with_newlines(old_text, "\n"))
    new_lines = split_lines(with_newlines(new_text, "\n"))
    shortest = min(len(old_lines), len(new_lines))
    head = 0
    while head < shortest and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    if head == len(old_lines) == len(new_lines):
        return "(no change)\n", False
    start = max(0, head - DIFF_CONTEXT)
    old_part = old_lines[start : len(old_lines) - max(0, tail - DIFF_CONTEXT)]
    new_part = new_lines[start : len(new_lines) - max(0, tail - DIFF_CONTEXT)]
    if len(old_part) * len(new_part) > DIFF_MAX_LINE_PRODUCT:
        note = f"(too many lines to compare: {len(old_lines)} now, {len(new_lines)} after)\n"
        return note, True
    diff = difflib.unified_diff(old_part, new_part, fromfile=name, tofile=name, n=DIFF_CONTEXT)
    lines = [_shift_hunk(line, start) for line in diff]
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    return _bounded(lines)


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(line: str, offset: int) -> str:
    """Hunk headers of a diff of slices, renumbered to the whole file's lines."""
    match = _HUNK.match(line) if offset and line.startswith("@@") else None
    if match is None:
        return line
    old_start, old_len, new_start, new_len = match.groups()
    old_start = str(int(old_start) + offset) if old_start != "0" else old_start
    new_start = str(int(new_start) + offset) if new_start != "0" else new_start
    return f"@@ -{old_start}{old_len or ''} +{new_start}{new_len or ''} @@" + line[match.end() :]


def _old_text(plan: WritePlan) -> str | None:
    try:
        data, _ = read_regular(plan.target, DIFF_MAX_BYTES)
    except (OSError, NotReadable):
        return None
    if len(data) > DIFF_MAX_BYTES or (detect_bom(data) is None and looks_binary(data)):
        return None
    try:
        return decode(data, plan.fmt.label if not plan.fmt.bom else None)[0]
    except (EncodingProblem, ValueError):
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
            "binding": delete_binding(plan),
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
        "binding": delete_binding(plan),
    }


def create_preview(ctx: ToolContext, args: CreateDirectoryArgs) -> dict[str, Any] | ToolResult:
    plan = plan_create(ctx.policy, args)
    if isinstance(plan, dict):
        return plan
    target, exists = plan
    return {"kind": "path", "path": str(target), "exists": exists}
