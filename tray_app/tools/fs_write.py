"""The tools that change files: write_file, create_directory, delete_file.

Each one plans first (resolve, look at what is there, refuse early) and the plan is shared with
the approval preview, so the user is never asked about a call that would fail anyway. The undo
journal records before anything changes (when it cannot, the call is refused, or with the user's
leave goes ahead and its result says ``"undo": "unavailable"``) and is committed only after
success. A result is true to the disk: success only when the change is made, and a failure says
what, if anything, was changed on the way.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tray_app.atomic import atomic_write
from tray_app.errors import SandboxViolation
from tray_app.tools.base import ToolContext, ToolResult, failure
from tray_app.tools.binding import (
    changed_since_approval,
    changed_text,
    file_binding,
    tree_binding,
)
from tray_app.tools.file_args import CreateDirectoryArgs, DeleteFileArgs, WriteFileArgs
from tray_app.tools.fs_safe import NotReadable, describe_os_error, human_size, kind_of, read_regular
from tray_app.tools.fs_walk import Entry, Walk
from tray_app.tools.sandbox import SandboxPolicy
from tray_app.tools.text_codec import (
    UTF8,
    EncodingProblem,
    TextFormat,
    chosen_format,
    encode,
    sniff,
    with_newlines,
)
from tray_app.tools.undo_steps import commit_change, discard_change, record_change

log = logging.getLogger(__name__)

MAX_WRITE_BYTES = 5 * 1024 * 1024
TEMP_PREFIX = ".metona-"
TEMP_SUFFIX = ".tmp"
DELETE_MAX_ITEMS = 50_000
DELETE_MAX_DEPTH = 256
FORMAT_SNIFF_BYTES = 64 * 1024


# ---- write_file ------------------------------------------------------------------------------


@dataclass(frozen=True)
class WritePlan:
    target: Path
    data: bytes
    old: os.stat_result | None  # the file being replaced, if any
    fmt: TextFormat = UTF8  # encoding, BOM and line endings written (the old file's, kept)


def plan_write(policy: SandboxPolicy, args: WriteFileArgs) -> WritePlan | ToolResult:
    target = policy.resolve(args.path, access="write")
    if args.path.endswith(("/", os.sep)):
        return failure(f"{args.path!r} ends with a separator; give the path of a file to write")
    try:
        old: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        return failure(describe_os_error(exc, target))
    if old is not None and not stat.S_ISREG(old.st_mode):
        kind = kind_of(old.st_mode)
        article = "a folder" if kind == "directory" else f"a {kind}"
        return failure(f"{target} is {article}; write_file only writes regular files")
    try:
        fmt = chosen_format(existing_format(target) if old is not None else None, args.encoding)
        # A CRLF file stays CRLF even when the model wrote \n; other content is kept as sent.
        content = with_newlines(args.content, "\r\n") if fmt.newline == "\r\n" else args.content
        data = encode(content, fmt)
    except EncodingProblem as exc:
        return failure(f"cannot write {target}: {exc}")
    if len(data) > MAX_WRITE_BYTES:
        return failure(
            f"content too large for {target}: {human_size(len(data))}; "
            "write_file writes at most 5 MB"
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
        return failure(changed_text(plan.target), changed_since_approval=True)
    entry = record_change(ctx, "write_file", plan.target)
    created: list[Path] = []
    try:
        make_parents(ctx.policy, plan.target.parent, created)
        atomic_write(plan.target, plan.data, like=plan.old, prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX)
    except (OSError, SandboxViolation) as exc:
        discard_change(ctx, entry)
        return failure(_why(exc, plan.target, "folder or file") + _left_behind(created))
    result: ToolResult = {
        "success": True,
        "path": str(plan.target),
        "bytesWritten": len(plan.data),
        "created": plan.old is None,
    }
    return commit_change(ctx, entry, result)


def _why(exc: OSError | SandboxViolation, target: Path, what: str) -> str:
    return describe_os_error(exc, target, what=what) if isinstance(exc, OSError) else str(exc)


def _left_behind(created: list[Path]) -> str:
    """Remove the folders a failed call created; name any that stay, so the result is true."""
    left = []
    for folder in reversed(created):
        try:
            os.rmdir(folder)
        except FileNotFoundError:
            continue
        except OSError:
            left.append(str(folder))
    return f" (the folder {', '.join(left)} was created and is still there)" if left else ""


def make_parents(
    policy: SandboxPolicy, folder: Path, created: list[Path] | None = None
) -> list[Path]:
    """Create the missing folders down to ``folder``, each checked by the policy first.

    ``created`` (if given) collects them as they are made, so a caller still knows them when
    a later one fails.
    """
    missing: list[Path] = []
    probe = folder
    while not os.path.lexists(probe) and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    if not probe.is_dir() or probe.is_symlink():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(probe))
    created = [] if created is None else created
    for path in reversed(missing):
        policy.resolve(str(path), access="write")
        try:
            os.mkdir(path)
        except FileExistsError:
            if not path.is_dir() or path.is_symlink():
                raise
            continue
        created.append(path)
    return created


# ---- create_directory ------------------------------------------------------------------------


def plan_create(policy: SandboxPolicy, args: CreateDirectoryArgs) -> tuple[Path, bool] | ToolResult:
    """The folder and whether it exists already; a non-folder in the way is a failure."""
    target = policy.resolve(args.path, access="write")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target, False
    except OSError as exc:
        return failure(describe_os_error(exc, target, what="folder"))
    if not stat.S_ISDIR(info.st_mode):
        return failure(f"{target} already exists and is a {kind_of(info.st_mode)}, not a folder")
    return target, True


def create_directory(ctx: ToolContext, args: CreateDirectoryArgs) -> ToolResult:
    plan = plan_create(ctx.policy, args)
    if isinstance(plan, dict):
        return plan
    target, exists = plan
    if exists:
        return {"success": True, "path": str(target), "created": False}
    entry = record_change(ctx, "create_directory", target)
    created: list[Path] = []
    try:
        make_parents(ctx.policy, target, created)
    except (OSError, SandboxViolation) as exc:
        discard_change(ctx, entry)
        return failure(_why(exc, target, "folder") + _left_behind(created))
    return commit_change(ctx, entry, {"success": True, "path": str(target), "created": True})


# ---- delete_file -----------------------------------------------------------------------------


@dataclass
class DeletePlan:
    target: Path
    kind: str  # file, directory, symlink, or a special kind
    info: os.stat_result
    entries: list[Entry]  # for a folder: everything below it (checked), else empty
    size: int  # bytes of regular files that would go


def plan_delete(policy: SandboxPolicy, args: DeleteFileArgs) -> DeletePlan | ToolResult:
    target = policy.resolve(args.path, access="delete")
    if policy.is_allowed_root_or_ancestor(target):
        return failure(
            f"{target} is an allowed folder, the home folder or the workspace (or holds one); "
            "it cannot be deleted"
        )
    try:
        info = os.lstat(target)
    except OSError as exc:
        return failure(describe_os_error(exc, target, what="file or folder"))
    kind = kind_of(info.st_mode)
    if kind != "directory":
        size = info.st_size if stat.S_ISREG(info.st_mode) else 0
        return DeletePlan(target=target, kind=kind, info=info, entries=[], size=size)
    if not args.recursive:
        try:
            with os.scandir(target) as it:
                not_empty = any(True for _ in it)
        except OSError as exc:
            return failure(describe_os_error(exc, target, what="folder"))
        if not_empty:
            return failure(
                f"{target} is a folder that is not empty; call delete_file again with "
                "recursive=true to delete it with everything inside"
            )
        return DeletePlan(target=target, kind=kind, info=info, entries=[], size=0)
    return _plan_tree(policy, target, info)


def _plan_tree(
    policy: SandboxPolicy, target: Path, info: os.stat_result
) -> DeletePlan | ToolResult:
    """Walk the whole tree first: a secret, a blocked folder or a hard link anywhere stops it."""
    walk = Walk(target, max_depth=DELETE_MAX_DEPTH, include_hidden=True)
    entries: list[Entry] = []
    size = 0
    try:
        for entry in walk:
            problem = _tree_problem(policy, entry)
            if problem:
                return failure(f"{target} cannot be deleted: {problem}")
            entries.append(entry)
            if stat.S_ISREG(entry.info.st_mode):
                size += entry.info.st_size
            if len(entries) > DELETE_MAX_ITEMS:
                return failure(
                    f"{target} holds more than {DELETE_MAX_ITEMS:,} items; too many to check "
                    "and delete safely"
                )
    except OSError as exc:
        return failure(describe_os_error(exc, target, what="folder"))
    if walk.stopped or walk.depth_limited or walk.unreadable:
        reason = walk.stopped or ("it is too deep" if walk.depth_limited else "unreadable folders")
        return failure(f"{target} cannot be checked completely ({reason}); not deleted")
    return DeletePlan(target=target, kind="directory", info=info, entries=entries, size=size)


def _tree_problem(policy: SandboxPolicy, entry: Entry) -> str | None:
    if policy.is_secret_entry(entry.path):
        return f"it contains {entry.rel!r}, which looks like a secret file"
    if policy.is_blocked(entry.path):
        return f"it contains the protected folder {entry.path}"
    if stat.S_ISREG(entry.info.st_mode) and entry.info.st_nlink > 1:
        return f"it contains {entry.rel!r}, which has {entry.info.st_nlink} hard links"
    return None


def delete_binding(plan: DeletePlan) -> dict[str, Any]:
    """What a delete's approval is bound to: the file, or every entry of the folder's tree."""
    if plan.kind != "directory":
        return file_binding(plan.target)
    return tree_binding(plan.info, ((e.rel, e.info) for e in plan.entries))


def delete_file(ctx: ToolContext, args: DeleteFileArgs) -> ToolResult:
    plan = plan_delete(ctx.policy, args)
    if not isinstance(plan, DeletePlan):
        return plan
    if ctx.bound is not None and changed_since_approval(ctx.bound, delete_binding(plan)):
        return failure(changed_text(plan.target), changed_since_approval=True)
    entry = record_change(ctx, "delete_file", plan.target)
    trashed = False
    try:
        # A link holds no data: it is unlinked, never handed to the trash (which looks at
        # where it points and may create a trash folder on the target's volume).
        if plan.kind != "symlink":
            trashed = _send_to_trash(plan.target)
        if not trashed:
            _remove(plan)
    except OSError as exc:
        message = describe_os_error(exc, plan.target, what="file or folder")
        if not os.path.lexists(plan.target):  # it is gone all the same: that is a success
            log.info("delete of %s reported %s but it is gone", plan.target, exc)
        elif plan.kind == "directory" and _partly_removed(plan):
            commit_change(ctx, entry, {})  # listed in the changes, as a change undo cannot reverse
            return failure(
                f"{message}; part of {plan.target} was deleted before the error, and undo "
                "cannot bring back a partly deleted folder"
            )
        else:
            discard_change(ctx, entry)
            return failure(message)
    result = {"success": True, "path": str(plan.target), "deleted": True, "trashed": trashed}
    return commit_change(ctx, entry, result)


def _partly_removed(plan: DeletePlan) -> bool:
    return any(not os.path.lexists(item.path) for item in plan.entries)


def _default_trash(path: str) -> None:
    from send2trash import send2trash

    send2trash(path)


# Replaced in tests so that nothing lands in the real user's trash.
trash: Callable[[str], None] = _default_trash


def _send_to_trash(path: Path) -> bool:
    """True when the item is in the OS trash; any trash failure falls back to deleting."""
    try:
        trash(str(path))
    except Exception as exc:  # send2trash raises OSError, TrashPermissionError, GLib errors
        log.info("could not move %s to the trash (%s); deleting it instead", path, exc)
        return not os.path.lexists(path)
    return not os.path.lexists(path)


def _remove(plan: DeletePlan) -> None:
    """Delete without following links: ``rmtree`` never descends into a linked folder."""
    if plan.kind == "directory":
        if plan.entries:
            shutil.rmtree(plan.target)
        else:
            os.rmdir(plan.target)
    else:
        os.unlink(plan.target)
