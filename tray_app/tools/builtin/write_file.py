"""write_file: create a file or replace its whole content, atomically and journaled.

The plan (``plan_write``) is shared by the preview and the run, so a call that would fail is
refused before the user is asked; an existing file keeps its encoding, BOM and line endings.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import (
    Field,
    PrivateAttr,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from tray_app.base.atomic import atomic_write
from tray_app.base.errors import SandboxViolation
from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import (
    PATH_HELP,
    JsonKind,
    _encoding,
    json_kind,
    json_note,
    json_text,
)
from tray_app.tools.builtin.previews import DIFF_MAX_BYTES, NEW_FILE_LINES, _bounded, diff_text
from tray_app.tools.fs.fs_safe import (
    NotReadable,
    human_size,
    kind_of,
    looks_binary,
    os_failure,
    read_regular,
)
from tray_app.tools.fs.fs_write import TEMP_PREFIX, TEMP_SUFFIX, change_failed, make_parents
from tray_app.tools.fs.opened import opened
from tray_app.tools.fs.text_codec import (
    UTF8,
    EncodingProblem,
    TextFormat,
    chosen_format,
    decode,
    detect_bom,
    encode,
    sniff,
    with_newlines,
)
from tray_app.tools.journal.undo_steps import commit_change, discard_change, record_change
from tray_app.tools.result import ToolResult, coded_failure, failure
from tray_app.tools.sandbox.binding import (
    changed_failure,
    changed_since_approval,
    file_binding,
)
from tray_app.tools.sandbox.policy import SandboxPolicy

MAX_WRITE_BYTES = 5 * 1024 * 1024

FORMAT_SNIFF_BYTES = 64 * 1024


class WriteFileArgs(ToolArgs):
    path: str = Field(description="The file to create or overwrite. " + PATH_HELP)
    content: str = Field(description="The complete new content of the file (up to 5 MB).")
    encoding: str | None = Field(
        default=None,
        description=(
            "Leave it out to keep an existing file's encoding, byte-order mark and line endings "
            "(a new file is utf-8); or name one, such as utf-8 or utf-16."
        ),
    )

    #: ``object``/``array`` when the model sent ``content`` as JSON data: written as JSON text.
    _content_was: JsonKind | None = PrivateAttr(default=None)

    @field_validator("encoding", mode="before")
    @classmethod
    def _enc(cls, value: Any) -> Any:
        return _encoding(value)

    @model_validator(mode="wrap")
    @classmethod
    def _json_content(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """Content given as an object or array becomes its formatted JSON text, so the
        preview, the approval and the file all hold exactly the same text."""
        kind = json_kind(data.get("content")) if isinstance(data, dict) else None
        if kind is not None:
            data = {**data, "content": json_text(data["content"])}
        args = handler(data)
        if kind is not None and isinstance(args, WriteFileArgs):
            args._content_was = kind
        return args

    @property
    def content_was(self) -> JsonKind | None:
        return self._content_was


@dataclass(frozen=True)
class WritePlan:
    target: Path
    data: bytes
    old: os.stat_result | None  # the file being replaced, if any
    fmt: TextFormat = UTF8  # encoding, BOM and line endings written (the old file's, kept)


def plan_write(policy: SandboxPolicy, args: WriteFileArgs) -> WritePlan | ToolResult:
    target = policy.resolve(args.path, access="write")
    if args.path.endswith(("/", os.sep)):
        return failure(
            f"{args.path!r} ends with a separator; give the path of a file to write",
            code="ends_with_separator",
            params={"path": args.path},
        )
    try:
        old: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        return os_failure(exc, target)
    if old is not None and not stat.S_ISREG(old.st_mode):
        kind = kind_of(old.st_mode)
        article = "a folder" if kind == "directory" else f"a {kind}"
        return failure(
            f"{target} is {article}; write_file only writes regular files",
            code="not_writable_kind",
            params={"path": target},
        )
    try:
        fmt = chosen_format(existing_format(target) if old is not None else None, args.encoding)
        # A CRLF file stays CRLF even when the model wrote \n; other content is kept as sent.
        content = with_newlines(args.content, "\r\n") if fmt.newline == "\r\n" else args.content
        data = encode(content, fmt)
    except EncodingProblem as exc:
        return coded_failure(exc, message=f"cannot write {target}: {exc}", path=target)
    if len(data) > MAX_WRITE_BYTES:
        return failure(
            f"content too large for {target}: {human_size(len(data))}; "
            "write_file writes at most 5 MB",
            code="content_too_large",
            params={"path": target, "size": len(data), "max_size": MAX_WRITE_BYTES},
        )
    return WritePlan(target=target, data=data, old=old, fmt=fmt)


def existing_format(target: Path) -> TextFormat | None:
    """How the file at ``target`` stores its text (from its first 64 KB), or None."""
    try:
        data, _ = read_regular(target, FORMAT_SNIFF_BYTES)
    except (OSError, NotReadable):
        return None
    return sniff(data[:FORMAT_SNIFF_BYTES])


def write_file(ctx: ToolContext, args: WriteFileArgs) -> ToolResult:
    plan = plan_write(ctx.policy, args)
    if not isinstance(plan, WritePlan):
        return plan
    if ctx.bound is not None and changed_since_approval(ctx.bound, file_binding(plan.target)):
        return changed_failure(plan.target)
    entry = record_change(ctx, "write_file", plan.target)
    created: list[Path] = []
    try:
        make_parents(ctx.policy, plan.target.parent, created)
        with opened(plan.target) as here:  # written in the checked folder, never via a link
            atomic_write(
                Path(here.name),
                plan.data,
                like=plan.old,
                prefix=TEMP_PREFIX,
                suffix=TEMP_SUFFIX,
                dir_fd=here.dir_fd,
            )
    except (OSError, SandboxViolation) as exc:
        discard_change(ctx, entry)
        return change_failed(exc, plan.target, "folder or file", created)
    result: ToolResult = {
        "success": True,
        "path": str(plan.target),
        "bytesWritten": len(plan.data),
        "created": plan.old is None,
    }
    if args.content_was is not None:
        result["json_content"] = args.content_was
        result["note"] = json_note(args.content_was)
    return commit_change(ctx, entry, result)


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
    if args.content_was is not None:
        base["json_content"] = args.content_was
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


TOOL = Tool(
    name="write_file",
    description=(
        "Write content to a file: creates it, or replaces its whole content if it exists. "
        "Missing parent folders are created. Content up to 5 MB. The user may be asked "
        "to approve."
    ),
    args_model=WriteFileArgs,
    risk=Risk.WRITE,
    handler=write_file,
    preview=write_preview,
    asks_when_exists=True,
    shallow_undo=True,
)
