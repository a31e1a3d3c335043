"""create_directory: a folder and any missing parents; journaled, so undo removes what it made."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from pydantic import Field

from tray_app.base.errors import SandboxViolation
from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP
from tray_app.tools.fs.fs_safe import (
    kind_of,
    os_failure,
)
from tray_app.tools.fs.fs_write import change_failed, make_parents
from tray_app.tools.journal.undo_steps import commit_change, discard_change, record_change
from tray_app.tools.result import ToolResult, failure
from tray_app.tools.sandbox.policy import SandboxPolicy


class CreateDirectoryArgs(ToolArgs):
    path: str = Field(
        description="The folder to create (missing parents are created). " + PATH_HELP
    )


def plan_create(policy: SandboxPolicy, args: CreateDirectoryArgs) -> tuple[Path, bool] | ToolResult:
    """The folder and whether it exists already; a non-folder in the way is a failure."""
    target = policy.resolve(args.path, access="write")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target, False
    except OSError as exc:
        return os_failure(exc, target, what="folder")
    if not stat.S_ISDIR(info.st_mode):
        return failure(
            f"{target} already exists and is a {kind_of(info.st_mode)}, not a folder",
            code="exists_not_folder",
            params={"path": target},
        )
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
        return change_failed(exc, target, "folder", created)
    return commit_change(ctx, entry, {"success": True, "path": str(target), "created": True})


def create_preview(ctx: ToolContext, args: CreateDirectoryArgs) -> dict[str, Any] | ToolResult:
    plan = plan_create(ctx.policy, args)
    if isinstance(plan, dict):
        return plan
    target, exists = plan
    preview: dict[str, Any] = {"kind": "path", "path": str(target), "exists": exists}
    risk = None if exists else ctx.policy.persistence_risk(target, folder=True)
    if risk is not None:  # a new .vscode or ~/.config/autostart: always asked
        preview["persistence"] = {**risk, "path": str(target)}
    return preview


TOOL = Tool(
    name="create_directory",
    description="Create a folder, and any missing parent folders.",
    args_model=CreateDirectoryArgs,
    risk=Risk.WRITE,
    handler=create_directory,
    preview=create_preview,
    shallow_undo=True,
)
