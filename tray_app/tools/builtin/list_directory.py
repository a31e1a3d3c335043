"""list_directory: a folder's entries with type, size and time; recursive up to a depth,
at most ``MAX_LIST_ENTRIES`` and as many whole entries as fit the result's room.

The walk's order is fixed (breadth first, names sorted per folder), so ``offset`` pages through
it: what one call leaves out, the next gets with ``offset=next_offset``.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import Field, field_validator

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP, _clamp, _extension
from tray_app.tools.builtin.fit_list import fitting, room_for
from tray_app.tools.fs.fs_read import _folder, _hidden_from_model
from tray_app.tools.fs.fs_safe import (
    iso_time,
    os_failure,
)
from tray_app.tools.fs.fs_walk import Walk, is_regular
from tray_app.tools.result import ToolResult

MAX_LIST_ENTRIES = 500

_LISTED_TYPES = frozenset({"file", "directory", "symlink"})  # pipes, sockets, devices: "other"


class ListDirectoryArgs(ToolArgs):
    path: str = Field(description="The folder to list. " + PATH_HELP)
    recursive: bool = Field(default=False, description="Also list the contents of sub-folders.")
    max_depth: int = Field(
        default=3, description="How many folder levels to list when recursive is true (1-10)."
    )
    include_hidden: bool = Field(
        default=False, description="Also list hidden entries (names starting with '.')."
    )
    filter_extension: str | None = Field(
        default=None, description="Only list files with this extension, for example '.py'."
    )
    offset: int = Field(
        default=0,
        description="Skip this many entries: to go on, pass next_offset from the last result.",
    )

    @field_validator("offset", mode="before")
    @classmethod
    def _offset(cls, value: Any) -> Any:
        return _clamp(value, 0, 10_000_000)

    @field_validator("max_depth", mode="before")
    @classmethod
    def _depth(cls, value: Any) -> Any:
        return _clamp(value, 1, 10)

    @field_validator("filter_extension", mode="before")
    @classmethod
    def _ext(cls, value: Any) -> Any:
        return _extension(value) or None if isinstance(value, str) else value


def list_directory(ctx: ToolContext, args: ListDirectoryArgs) -> ToolResult:
    root = _folder(ctx.policy, args.path, "list")
    if isinstance(root, dict):
        return root
    walk = Walk(
        root,
        max_depth=args.max_depth if args.recursive else 1,
        include_hidden=args.include_hidden,
        skip=_hidden_from_model(ctx.policy, root),
        cancel=ctx.cancel,
    )
    entries: list[dict[str, Any]] = []
    truncated = False
    skipped = 0
    try:
        for entry in walk:
            if (
                args.filter_extension
                and entry.kind != "directory"
                and not entry.name.lower().endswith(args.filter_extension)
            ):
                continue
            if skipped < args.offset:
                skipped += 1
                continue
            if len(entries) >= MAX_LIST_ENTRIES:
                truncated = True
                break
            entries.append(
                {
                    "name": entry.rel,
                    "type": entry.kind if entry.kind in _LISTED_TYPES else "other",
                    "size": entry.info.st_size if is_regular(entry) else None,
                    "modified": iso_time(entry.info.st_mtime),
                }
            )
    except OSError as exc:
        return os_failure(exc, root, what="folder")
    result: dict[str, Any] = {
        "success": True,
        "path": str(root),
        "entries": [],
        "total": 0,
        "truncated": truncated or walk.stopped is not None,
        "offset": args.offset,
        "entries_omitted": len(entries),
        "next_offset": args.offset + len(entries),
        "rest": _REST,
    }
    room = room_for(result, "entries", ctx.result_chars)
    # At least one entry, so that next_offset moves on (the generic fit shrinks a huge name).
    kept = len(entries) if room is None else max(min(1, len(entries)), fitting(entries, room))
    page = entries[:kept]  # whole entries, in the walk's order: next_offset goes on from here
    page.sort(key=lambda e: [part.casefold() for part in str(e["name"]).split(os.sep)])
    result.update(entries=page, total=kept, entries_omitted=len(entries) - kept)
    result["next_offset"] = args.offset + kept
    if not (result["entries_omitted"] or truncated):
        del result["next_offset"], result["rest"], result["entries_omitted"]
    if not args.offset:
        del result["offset"]
    return result


_REST = (
    "more entries than fit here: call again with offset=next_offset, or list a narrower "
    "path, a smaller max_depth or a filter_extension"
)


TOOL = Tool(
    name="list_directory",
    description=(
        "List the files and folders in a folder with their type, size and modification "
        "time. Set recursive to true to include sub-folders (up to max_depth levels). "
        "At most 500 entries per call; when some are left out, call again with "
        "offset=next_offset."
    ),
    args_model=ListDirectoryArgs,
    risk=Risk.READ,
    handler=list_directory,
)
