"""delete_file: a file, a link or a folder (recursive on request), to the trash when possible.

A folder's whole tree is checked first (a secret, a protected folder or a hard link anywhere
stops it) and the approval is bound to that tree; the journal keeps a copy for undo.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from tray_app.tool_errors import ToolErrorCode
from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP
from tray_app.tools.builtin.previews import TREE_MAX_LINES, _bounded
from tray_app.tools.fs.fs_safe import (
    describe_os_error,
    human_size,
    kind_of,
    os_failure,
    removable,
)
from tray_app.tools.fs.fs_walk import Entry, Walk
from tray_app.tools.fs.opened import Opened, opened
from tray_app.tools.fs.staging import staged
from tray_app.tools.journal.undo_steps import commit_change, discard_change, record_change
from tray_app.tools.result import ToolResult, failure
from tray_app.tools.sandbox.binding import (
    changed_failure,
    changed_since_approval,
    file_binding,
    tree_binding,
)
from tray_app.tools.sandbox.policy import SandboxPolicy

log = logging.getLogger(__name__)


DELETE_MAX_ITEMS = 50_000

DELETE_MAX_DEPTH = 256


class DeleteFileArgs(ToolArgs):
    path: str = Field(
        description="The file or folder to delete (it goes to the trash). " + PATH_HELP
    )
    recursive: bool = Field(
        default=False,
        description="Required to delete a folder that is not empty, with everything in it.",
    )


@dataclass
class DeletePlan:
    target: Path
    kind: str  # file, directory, symlink, or a special kind
    info: os.stat_result
    entries: list[Entry]  # for a folder: everything below it (checked), else empty
    size: int  # bytes of regular files that would go


def plan_delete(policy: SandboxPolicy, args: DeleteFileArgs) -> DeletePlan | ToolResult:
    found = removable(policy, args.path, verb="deleted", code="delete_protected")
    if isinstance(found, dict):
        return found
    target, info = found
    kind = kind_of(info.st_mode)
    if kind != "directory":
        size = info.st_size if stat.S_ISREG(info.st_mode) else 0
        return DeletePlan(target=target, kind=kind, info=info, entries=[], size=size)
    if not args.recursive:
        try:
            with os.scandir(target) as it:
                not_empty = any(True for _ in it)
        except OSError as exc:
            return os_failure(exc, target, what="folder")
        if not_empty:
            return failure(
                f"{target} is a folder that is not empty; call delete_file again with "
                "recursive=true to delete it with everything inside",
                code="delete_folder_not_empty",
                params={"path": target},
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
                code, why = problem
                return failure(
                    f"{target} cannot be deleted: {why}",
                    code=code,
                    params={"path": target, "entry": entry.rel},
                )
            entries.append(entry)
            if stat.S_ISREG(entry.info.st_mode):
                size += entry.info.st_size
            if len(entries) > DELETE_MAX_ITEMS:
                return failure(
                    f"{target} holds more than {DELETE_MAX_ITEMS:,} items; too many to check "
                    "and delete safely",
                    code="delete_too_many",
                    params={"path": target, "limit": DELETE_MAX_ITEMS},
                )
    except OSError as exc:
        return os_failure(exc, target, what="folder")
    if walk.stopped or walk.depth_limited or walk.unreadable:
        reason = walk.stopped or ("it is too deep" if walk.depth_limited else "unreadable folders")
        return failure(
            f"{target} cannot be checked completely ({reason}); not deleted",
            code="delete_unchecked",
            params={"path": target},
        )
    return DeletePlan(target=target, kind="directory", info=info, entries=entries, size=size)


def _tree_problem(policy: SandboxPolicy, entry: Entry) -> tuple[ToolErrorCode, str] | None:
    if policy.is_secret_entry(entry.path):
        return "delete_holds_secret", f"it contains {entry.rel!r}, which looks like a secret file"
    if policy.is_blocked(entry.path):
        return "delete_holds_blocked", f"it contains the protected folder {entry.path}"
    if stat.S_ISREG(entry.info.st_mode) and entry.info.st_nlink > 1:
        links = entry.info.st_nlink
        return "delete_holds_hard_link", f"it contains {entry.rel!r}, which has {links} hard links"
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
        return changed_failure(plan.target)
    entry = record_change(ctx, "delete_file", plan.target)
    trashed = False
    try:
        # A link holds no data: it is unlinked, never handed to the trash (which looks at
        # where it points and may create a trash folder on the target's volume).
        trashed = _delete(plan)
    except OSError as exc:
        message = describe_os_error(exc, plan.target, what="file or folder")
        if not os.path.lexists(plan.target):  # it is gone all the same: that is a success
            log.info("delete of %s reported %s but it is gone", plan.target, exc)
        elif plan.kind == "directory" and _partly_removed(plan):
            commit_change(ctx, entry, {})  # listed in the changes, as a change undo cannot reverse
            return failure(
                f"{message}; part of {plan.target} was deleted before the error, and undo "
                "cannot bring back a partly deleted folder",
                code="delete_partly_done",
                params={"path": plan.target},
            )
        else:
            discard_change(ctx, entry)
            return os_failure(exc, plan.target, what="file or folder")
    result = {"success": True, "path": str(plan.target), "deleted": True, "trashed": trashed}
    return commit_change(ctx, entry, result)


def _partly_removed(plan: DeletePlan) -> bool:
    return any(not os.path.lexists(item.path) for item in plan.entries)


def _default_trash(path: str) -> None:
    from send2trash import send2trash

    send2trash(path)


# Replaced in tests so that nothing lands in the real user's trash.
trash: Callable[[str], None] = _default_trash


def _delete(plan: DeletePlan) -> bool:
    """Trash or remove the checked entry through its opened folder; True when trashed.

    A link holds no data: it is unlinked, never handed to the trash (which looks at where it
    points and may create a trash folder on the target's volume). Anything else is staged
    first (``fs.staging``), so the trash's path string can only lead to it."""
    with opened(plan.target) as here:
        if plan.kind == "symlink":
            os.unlink(here.name, dir_fd=here.dir_fd)
            return False
        with staged(here) as entry:
            if _send_to_trash(entry):
                return True
            _remove(plan, entry)
            return False


def _send_to_trash(entry: Opened) -> bool:
    """True when the item is in the OS trash; any trash failure falls back to deleting."""
    try:
        trash(str(entry.path))
    except Exception as exc:  # send2trash raises OSError, TrashPermissionError, GLib errors
        log.info("could not move %s to the trash (%s); deleting it instead", entry.path, exc)
    return not _exists(entry)


def _exists(entry: Opened) -> bool:
    try:
        entry.lstat()
    except FileNotFoundError:
        return False
    return True


def _remove(plan: DeletePlan, entry: Opened) -> None:
    """Delete without following links: ``rmtree`` never descends into a linked folder."""
    if plan.kind != "directory":
        os.unlink(entry.name, dir_fd=entry.dir_fd)
    elif not plan.entries:
        os.rmdir(entry.name, dir_fd=entry.dir_fd)
    elif entry.dir_fd is not None and sys.version_info >= (3, 11):
        shutil.rmtree(entry.name, dir_fd=entry.dir_fd)
    else:
        shutil.rmtree(entry.path)


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
            "item": plan.kind,
            "text": line,
            "count": 1,
            "binding": delete_binding(plan),
        }
    lines = [f"{plan.target}{os.sep}\n"]
    ordered = sorted(plan.entries, key=lambda e: [p.casefold() for p in e.rel.split(os.sep)])
    for entry in ordered:
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
        "rows": [_tree_row(entry) for entry in ordered[: TREE_MAX_LINES - 1]],
        "sep": os.sep,
        "count": len(plan.entries) + 1,
        "truncated": cut,
        "binding": delete_binding(plan),
    }


def _tree_row(entry: Entry) -> dict[str, Any]:
    """One line of the tree as data, so the page says sizes and kinds in the user's language
    (the ``text`` form is English, for the model's side and the terminal)."""
    size = entry.info.st_size if stat.S_ISREG(entry.info.st_mode) else None
    return {"depth": entry.depth, "name": entry.name, "kind": entry.kind, "size": size}


TOOL = Tool(
    name="delete_file",
    description=(
        "Delete a file or an empty folder (it is moved to the trash when possible). "
        "To delete a folder with everything in it, set recursive to true. "
        "The user is always asked to approve."
    ),
    args_model=DeleteFileArgs,
    risk=Risk.DESTRUCTIVE,
    handler=delete_file,
    preview=delete_preview,
)
