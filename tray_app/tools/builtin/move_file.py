"""move_file: rename or move a file or folder inside the allowed folders.

Both ends go through ``SandboxPolicy.resolve`` like any path, as the entry itself (a link is
moved as a link, never followed): a destination folder that is a symbolic link leading outside
is outside. An existing file at the destination is replaced only with ``overwrite`` and then the
call asks like a delete (``deletes: True`` in its preview); a folder is never replaced. Without
``overwrite`` the move cannot clobber a file that appears meanwhile (it hard-links, then unlinks
the old name). The undo journal records a rename (nothing is copied except a replaced file);
undo renames it back and puts a replaced file back.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field

from tray_app.tool_errors import CodedError
from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP
from tray_app.tools.fs.fs_safe import human_size, kind_of, os_failure, removable
from tray_app.tools.fs.fs_write import make_parents
from tray_app.tools.fs.opened import Opened, named, opened
from tray_app.tools.journal.undo_steps import commit_change, discard_change
from tray_app.tools.result import ToolResult, coded_failure, failure
from tray_app.tools.sandbox.binding import changed_failure, changed_since_approval, file_binding
from tray_app.tools.sandbox.policy import SandboxPolicy


class MoveFileArgs(ToolArgs):
    source: str = Field(
        validation_alias=AliasChoices("source", "src", "from", "path", "old_path"),
        description="The file or folder to move or rename. " + PATH_HELP,
    )
    destination: str = Field(
        validation_alias=AliasChoices("destination", "dest", "to", "target", "new_path"),
        description=(
            "Its new path. An existing folder means: move it into that folder. " + PATH_HELP
        ),
    )
    overwrite: bool = Field(
        default=False,
        description="Replace a file that already exists at the destination (it is deleted).",
    )


@dataclass(frozen=True)
class MovePlan:
    source: Path
    destination: Path
    kind: str  # of the source
    size: int  # bytes, for a file
    replaces: os.stat_result | None  # the file at the destination that would be replaced


def plan_move(policy: SandboxPolicy, args: MoveFileArgs) -> MovePlan | ToolResult:
    found = removable(policy, args.source, verb="moved", code="move_protected")
    if isinstance(found, dict):
        return found
    source, info = found
    destination = policy.resolve(args.destination, access="delete")
    there = _lstat(destination)
    into = there is not None and (
        stat.S_ISDIR(there.st_mode) or (stat.S_ISLNK(there.st_mode) and destination.is_dir())
    )
    if into and destination != source:
        # "move a.txt into docs/": the entry keeps its name inside the folder (a link to a
        # folder is a way into that folder, checked like any path through a link).
        destination = policy.resolve(str(destination / source.name), access="delete")
        there = _lstat(destination)
    if destination == source:
        return failure(
            f"{source} is already at {destination}; nothing to move",
            code="move_same_place",
            params={"path": source, "destination": destination},
        )
    if stat.S_ISDIR(info.st_mode) and _inside(destination, source):
        return failure(
            f"{source} cannot be moved into itself ({destination})",
            code="move_into_itself",
            params={"path": source, "destination": destination},
        )
    if there is not None and not _same_entry(there, info):
        if stat.S_ISDIR(there.st_mode):
            return failure(
                f"{destination} is an existing folder; move_file never replaces one",
                code="move_onto_folder",
                params={"destination": destination},
            )
        if not args.overwrite:
            return failure(
                f"{destination} already exists ({kind_of(there.st_mode)}, "
                f"{human_size(there.st_size)}); call move_file again with overwrite=true to "
                "replace it (the file there is deleted)",
                code="move_destination_exists",
                params={"destination": destination, "size": there.st_size},
            )
    elif there is not None:
        there = None  # the same file under another case: a rename on a case-blind disk
    size = info.st_size if stat.S_ISREG(info.st_mode) else 0
    return MovePlan(source, destination, kind_of(info.st_mode), size, there)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _same_entry(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_ino, a.st_dev) == (b.st_ino, b.st_dev)


def _inside(path: Path, folder: Path) -> bool:
    return path.parts[: len(folder.parts)] == folder.parts


def move_preview(ctx: ToolContext, args: MoveFileArgs) -> ToolResult:
    plan = plan_move(ctx.policy, args)
    if not isinstance(plan, MovePlan):
        return plan
    what = "folder" if plan.kind == "directory" else plan.kind
    lines = [f"{plan.source}  ({what}{', ' + human_size(plan.size) if plan.size else ''})"]
    lines.append(f"→ {plan.destination}")
    if plan.replaces is not None:
        lines.append(
            f"replaces the {kind_of(plan.replaces.st_mode)} at the destination "
            f"({human_size(plan.replaces.st_size)}); it is deleted"
        )
    preview: dict[str, Any] = {
        "kind": "move",
        "path": str(plan.source),
        "destination": str(plan.destination),
        "source_kind": plan.kind,
        "exists": plan.replaces is not None,
        "overwrites": plan.replaces is not None,
        "deletes": plan.replaces is not None,
        "size": plan.size,
        "text": "\n".join(lines) + "\n",
        "binding": move_binding(plan),
    }
    if plan.replaces is not None:
        preview["replaced_size"] = plan.replaces.st_size
    if plan.kind == "directory":
        # A prepared folder put into place as .vscode or ~/.config/autostart makes what it
        # holds run later, like a file written there: always asked.
        risk = ctx.policy.persistence_risk(plan.destination, folder=True)
        if risk is not None:
            preview["persistence"] = {**risk, "path": str(plan.destination)}
    return preview


def move_binding(plan: MovePlan) -> dict[str, Any]:
    """What a move's approval is bound to: what it moves, and what is at the destination."""
    return {"source": file_binding(plan.source), "destination": file_binding(plan.destination)}


def move_file(ctx: ToolContext, args: MoveFileArgs) -> ToolResult:
    plan = plan_move(ctx.policy, args)
    if not isinstance(plan, MovePlan):
        return plan
    if ctx.bound is not None and changed_since_approval(ctx.bound, move_binding(plan)):
        return changed_failure(plan.source)
    entry = None
    if ctx.journal is not None:  # before anything changes: a refusal leaves no folder behind
        entry = ctx.journal.record_move(
            call_id=ctx.call_id,
            source=plan.source,
            destination=plan.destination,
            required=not ctx.undo_optional,
            tool="move_file",
        )
    try:
        make_parents(ctx.policy, plan.destination.parent)
    except OSError as exc:
        discard_change(ctx, entry)
        return os_failure(exc, plan.destination.parent, what="folder")
    try:
        _rename(plan)
    except _Taken as exc:
        discard_change(ctx, entry)
        return coded_failure(exc)
    except OSError as exc:
        discard_change(ctx, entry)
        if exc.errno == errno.EXDEV:
            return failure(
                f"{plan.source} and {plan.destination} are on different disks; move_file only "
                "moves within one (copy with read_file and write_file instead)",
                code="move_other_disk",
                params={"path": plan.source, "destination": plan.destination},
            )
        return os_failure(exc, plan.source, what="file or folder")
    return commit_change(
        ctx,
        entry,
        {
            "success": True,
            "path": str(plan.destination),
            "source": str(plan.source),
            "destination": str(plan.destination),
            "type": plan.kind,
            "replaced": plan.replaces is not None,
        },
    )


class _Taken(CodedError):
    def __init__(self, message: str, destination: Path) -> None:
        super().__init__(message, code="move_destination_appeared", destination=destination)


def _rename(plan: MovePlan) -> None:
    """Rename through the two opened folders (what was checked is what moves, and where it
    lands); without a planned replacement, never clobber what appeared since the plan."""
    with opened(plan.source) as source, opened(plan.destination) as destination:
        _rename_at(plan, source, destination)


def _rename_at(plan: MovePlan, source: Opened, destination: Opened) -> None:
    def rename() -> None:
        try:
            os.rename(
                source.name,
                destination.name,
                src_dir_fd=source.dir_fd,
                dst_dir_fd=destination.dir_fd,
            )
        except OSError as exc:
            raise named(exc, plan.source) from exc

    if plan.replaces is not None:
        now = _lstat_at(destination)
        if now is None or not _same_entry(now, plan.replaces) or stat.S_ISDIR(now.st_mode):
            raise _Taken(
                f"{plan.destination} changed since it was checked; nothing was moved",
                plan.destination,
            )
        rename()
        return
    now, then = _lstat_at(destination), _lstat_at(source)
    if now is not None and then is not None and _same_entry(now, then):
        rename()  # a new case of the same name (macOS, Windows)
        return
    if plan.kind != "directory":
        try:  # link() refuses an existing name: no window between check and rename
            os.link(
                source.name,
                destination.name,
                src_dir_fd=source.dir_fd,
                dst_dir_fd=destination.dir_fd,
                follow_symlinks=False,
            )
        except FileExistsError as exc:
            raise _Taken(
                f"{plan.destination} appeared meanwhile; nothing was moved", plan.destination
            ) from exc
        except OSError as exc:
            if exc.errno == errno.EXDEV:
                raise
            # no hard links here (FAT, some network disks): check, then rename
        else:
            os.unlink(source.name, dir_fd=source.dir_fd)
            return
    if _lstat_at(destination) is not None:
        raise _Taken(f"{plan.destination} appeared meanwhile; nothing was moved", plan.destination)
    rename()


def _lstat_at(here: Opened) -> os.stat_result | None:
    try:
        return here.lstat()
    except FileNotFoundError:
        return None


TOOL = Tool(
    name="move_file",
    description=(
        "Move or rename a file or folder inside the allowed folders. If destination is an "
        "existing folder, the item is moved into it. An existing file at the destination is "
        "only replaced with overwrite=true (the user is then asked, as for a delete)."
    ),
    args_model=MoveFileArgs,
    risk=Risk.WRITE,
    handler=move_file,
    preview=move_preview,
)
