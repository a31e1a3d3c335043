"""edit_file: replace parts of a text file, so a model can fix one line of a long file.

Each ``old_text`` must match exactly once (``edit_match`` has the rules); all edits apply or
none. The file keeps its encoding, byte-order mark and line endings: a CRLF file is edited as
if it had ``\\n`` and written back with CRLF, so bytes outside the edit do not change; an
encoding that would not give them back (``unicode_escape``, ``utf-7``, a code page that reads
two byte sequences as one character) is refused (``text_codec.keeps_bytes``). The approval
preview is the unified diff of exactly what will be written; ``dry_run`` returns that
diff without writing and needs no approval (its preview says ``changes: False``).

The plan is made again when the call runs (the file may have changed since the preview) and the
file is checked once more just before it is replaced.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, field_validator

from tray_app.base.atomic import atomic_write
from tray_app.tool_errors import CodedError
from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.edit_match import Match, NoMatch, apply_all
from tray_app.tools.builtin.file_args import PATH_HELP
from tray_app.tools.builtin.previews import diff_text
from tray_app.tools.fs.fs_safe import (
    NotReadable,
    human_size,
    kind_of,
    looks_binary,
    os_failure,
    read_regular,
)
from tray_app.tools.fs.fs_write import TEMP_PREFIX, TEMP_SUFFIX
from tray_app.tools.fs.opened import Opened, opened
from tray_app.tools.fs.text_codec import (
    EncodingProblem,
    TextFormat,
    check_writable,
    decode,
    detect_bom,
    encode,
    keeps_bytes,
    normalize_name,
)
from tray_app.tools.journal.undo_steps import commit_change, discard_change, record_change
from tray_app.tools.result import ToolResult, coded_failure, failure
from tray_app.tools.sandbox.binding import bytes_binding, changed_failure, changed_since_approval
from tray_app.tools.sandbox.policy import SandboxPolicy

MAX_EDIT_BYTES = 5 * 1024 * 1024
MAX_EDITS = 100
RESULT_DIFF_CHARS = 6000


class TextEdit(ToolArgs):
    old_text: str = Field(
        validation_alias=AliasChoices("old_text", "oldText", "old", "search"),
        description="The exact text to replace, copied from the file (a few lines).",
    )
    new_text: str = Field(
        validation_alias=AliasChoices("new_text", "newText", "new", "replace"),
        description="The text to put in its place ('' deletes it).",
    )


class EditFileArgs(ToolArgs):
    path: str = Field(description="The text file to edit. " + PATH_HELP)
    edits: list[TextEdit] = Field(
        min_length=1,
        max_length=MAX_EDITS,
        description=(
            "Replacements, applied in order. Each old_text must occur exactly once in the file; "
            "include enough surrounding lines to make it unique."
        ),
    )
    dry_run: bool = Field(
        default=False, description="Only show the diff the edits would make; change nothing."
    )
    encoding: str | None = Field(
        default=None,
        description=(
            "Leave it out: UTF-8 and UTF-16 (with a byte-order mark) are detected. For other "
            "files name the encoding they are in, such as latin1 or cp1252; it is kept."
        ),
    )

    @field_validator("encoding", mode="before")
    @classmethod
    def _enc(cls, value: Any) -> Any:
        if isinstance(value, str):
            name = normalize_name(value)
            if name == "base64":
                raise ValueError("edit_file edits text; base64 is for reading binary files")
            return name
        return value

    @field_validator("edits", mode="before")
    @classmethod
    def _one_edit(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value


@dataclass(frozen=True)
class EditPlan:
    target: Path
    info: os.stat_result
    fmt: TextFormat
    before: str
    after: str
    data: bytes
    matches: list[Match]
    binding: dict[str, Any]  # of the bytes the edit was planned from (``tools.sandbox.binding``)


def plan_edit(
    policy: SandboxPolicy, args: EditFileArgs, *, cancel: threading.Event | None = None
) -> EditPlan | ToolResult:
    target = policy.resolve(args.path, access="write")
    try:
        data, info = read_regular(target, MAX_EDIT_BYTES)
    except NotReadable as exc:
        return coded_failure(exc)
    except OSError as exc:
        return os_failure(exc, target)
    if len(data) > MAX_EDIT_BYTES:
        return failure(
            f"{target} is larger than {human_size(MAX_EDIT_BYTES)}; edit_file stops there",
            code="edit_too_large",
            params={"path": target, "max_size": MAX_EDIT_BYTES},
        )
    if (
        detect_bom(data) is None
        and args.encoding in (None, "utf-8", "latin1")
        and looks_binary(data)
    ):
        return failure(
            f"{target} looks like a binary file; edit_file edits text files",
            code="edit_binary",
            params={"path": target},
        )
    try:
        if args.encoding is not None:
            check_writable(args.encoding)  # before decoding: a codec never to write with
    except EncodingProblem as exc:
        return coded_failure(exc, message=f"{target} was not changed: {exc}", path=target)
    try:
        text, fmt = decode(data, args.encoding)
    except EncodingProblem as exc:
        return coded_failure(
            exc,
            message=f"{target} is {exc}; edit_file detects UTF-8 and UTF-16, for other text "
            "name its encoding (such as latin1 or cp1252)",
            path=target,
        )
    try:
        keeps_bytes(data, text, fmt)
    except EncodingProblem as exc:
        return coded_failure(exc, message=f"{target} was not changed: {exc}", path=target)
    # A file with CRLF endings only is edited with \n (what the model writes) and written back
    # with CRLF; a file that mixes endings is edited as it is.
    lone_lf = text.count("\n") - text.count("\r\n")
    crlf = fmt.newline == "\r\n" and lone_lf == 0
    work = text.replace("\r\n", "\n") if crlf else text
    edits = [(_lf(e.old_text, crlf), _lf(e.new_text, crlf)) for e in args.edits]
    try:
        changed, matches = apply_all(work, edits, cancel=cancel)
    except NoMatch as exc:
        return coded_failure(exc, message=f"{target} was not changed: {exc}", path=target)
    if changed == work:
        return failure(
            f"{target} was not changed: the edits leave the text as it is",
            code="edit_no_change",
            params={"path": target},
        )
    after = changed.replace("\n", "\r\n") if crlf else changed
    try:
        new_data = encode(after, fmt)
    except EncodingProblem as exc:
        return coded_failure(exc, message=f"{target} was not changed: {exc}", path=target)
    if len(new_data) > MAX_EDIT_BYTES:
        return failure(
            f"{target} would grow past {human_size(MAX_EDIT_BYTES)}; not changed",
            code="edit_would_grow",
            params={"path": target, "max_size": MAX_EDIT_BYTES},
        )
    return EditPlan(target, info, fmt, text, after, new_data, matches, bytes_binding(info, data))


def _lf(value: str, crlf: bool) -> str:
    return value.replace("\r\n", "\n") if crlf else value


def _summary(plan: EditPlan) -> list[dict[str, Any]]:
    return [{"line": m.line, "matched": m.how} for m in plan.matches]


def edit_preview(ctx: ToolContext, args: EditFileArgs) -> ToolResult:
    plan = plan_edit(ctx.policy, args, cancel=ctx.cancel)
    if not isinstance(plan, EditPlan):
        return plan
    text, cut = diff_text(plan.before, plan.after, str(plan.target))
    return {
        "kind": "diff",
        "path": str(plan.target),
        "exists": True,
        "overwrites": True,
        "changes": not args.dry_run,
        "size_before": plan.info.st_size,
        "size_after": len(plan.data),
        "format": plan.fmt.describe(),
        "edits": _summary(plan),
        "text": text,
        "truncated": cut,
        "binding": plan.binding,
    }


def edit_file(ctx: ToolContext, args: EditFileArgs) -> ToolResult:
    plan = plan_edit(ctx.policy, args, cancel=ctx.cancel)
    if not isinstance(plan, EditPlan):
        return plan
    diff, cut = diff_text(plan.before, plan.after, str(plan.target))
    if len(diff) > RESULT_DIFF_CHARS:
        diff, cut = diff[:RESULT_DIFF_CHARS] + "\n…\n", True
    result: ToolResult = {
        "success": True,
        "path": str(plan.target),
        "dry_run": args.dry_run,
        "edits": _summary(plan),
        "diff": diff,
        "diff_truncated": cut,
        "format": plan.fmt.describe(),
    }
    if args.dry_run:
        return result
    if changed_since_approval(ctx.bound, plan.binding):
        return changed_failure(plan.target)
    entry = record_change(ctx, "edit_file", plan.target)
    try:
        with opened(plan.target) as here:  # checked and written in the same opened folder
            _still_same(plan, here)
            atomic_write(
                Path(here.name),
                plan.data,
                like=plan.info,
                prefix=TEMP_PREFIX,
                suffix=TEMP_SUFFIX,
                dir_fd=here.dir_fd,
            )
    except _Changed as exc:
        discard_change(ctx, entry)
        return coded_failure(exc)
    except OSError as exc:
        discard_change(ctx, entry)
        return os_failure(exc, plan.target)
    return commit_change(ctx, entry, {**result, "bytesWritten": len(plan.data)})


class _Changed(CodedError):
    pass


def _still_same(plan: EditPlan, here: Opened) -> None:
    """The file read for the plan is still the one there (not replaced or changed meanwhile)."""
    try:
        now = here.lstat()
    except OSError as exc:
        raise _Changed(
            f"{plan.target} changed while it was being edited; not changed",
            code="changed_while_editing",
            path=plan.target,
        ) from exc
    then = plan.info
    if not stat.S_ISREG(now.st_mode) or (now.st_ino, now.st_dev, now.st_size, now.st_mtime_ns) != (
        then.st_ino,
        then.st_dev,
        then.st_size,
        then.st_mtime_ns,
    ):
        kind = kind_of(now.st_mode)
        raise _Changed(
            f"{plan.target} changed while it was being edited (it is now a {kind} of "
            f"{human_size(now.st_size)}); not changed, read it again",
            code="changed_while_editing",
            path=plan.target,
        )


TOOL = Tool(
    name="edit_file",
    description=(
        "Change part of a text file: each edit replaces old_text (copied exactly from the file, "
        "a few lines, occurring once) with new_text. Prefer this to write_file for changes to "
        "existing files. The file keeps its encoding and line endings. With dry_run it only "
        "returns the diff. The user may be asked to approve the diff."
    ),
    args_model=EditFileArgs,
    risk=Risk.WRITE,
    handler=edit_file,
    preview=edit_preview,
)
