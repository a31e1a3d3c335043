"""The read-only tools: read_file, list_directory, search_files."""

from __future__ import annotations

import base64
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tray_app.tools import search_rg
from tray_app.tools.base import ToolContext, ToolResult, failure
from tray_app.tools.file_args import ListDirectoryArgs, ReadFileArgs, SearchFilesArgs
from tray_app.tools.fs_safe import (
    NotReadable,
    describe_os_error,
    human_size,
    iso_time,
    kind_of,
    looks_binary,
    read_regular,
    split_lines,
)
from tray_app.tools.fs_walk import Entry, Walk, is_regular
from tray_app.tools.sandbox import Access, SandboxPolicy
from tray_app.tools.search_run import Search, single_file
from tray_app.tools.text_codec import EncodingProblem, TextFormat, decode, detect_bom
from tray_app.tools.walk_filter import HiddenFromModel

MAX_READ_BYTES = 1024 * 1024
MAX_READ_LINES = 500
MAX_LIST_ENTRIES = 500
SEARCH_MAX_DEPTH = 32
_LISTED_TYPES = frozenset({"file", "directory", "symlink"})  # pipes, sockets, devices: "other"


def read_file(ctx: ToolContext, args: ReadFileArgs) -> ToolResult:
    path = ctx.policy.resolve(args.path, access="read")
    try:
        data, info = read_regular(path, MAX_READ_BYTES)
    except NotReadable as exc:
        return failure(str(exc))
    except OSError as exc:
        return failure(describe_os_error(exc, path))
    if len(data) > MAX_READ_BYTES:
        size = max(info.st_size, len(data))
        return failure(
            f"file too large: {path} is {human_size(size)}; read_file reads files up to 1 MB "
            "(use search_files to find lines in it)"
        )
    if args.encoding == "base64":
        if args.start_line is not None or args.end_line is not None:
            return failure("start_line and end_line need a text encoding (such as utf-8 or latin1)")
        return {
            "success": True,
            "path": str(path),
            "content": base64.b64encode(data).decode("ascii"),
            "encoding": "base64",
            "size": len(data),
            "lines": None,
            "truncated": False,
            "line_range": None,
        }
    if (
        detect_bom(data) is None
        and args.encoding in (None, "utf-8", "latin1")
        and looks_binary(data)
    ):
        return failure(
            f"{path} looks like a binary file ({human_size(len(data))}); "
            "read it with encoding base64 if you really need its bytes"
        )
    try:
        text, fmt = decode(data, args.encoding)
    except EncodingProblem as exc:
        return failure(f"{path} is {exc}")
    return _text_result(path, text, len(data), args, fmt)


def _text_result(
    path: Path, text: str, size: int, args: ReadFileArgs, fmt: TextFormat
) -> ToolResult:
    lines = split_lines(text)
    total = len(lines)
    start = args.start_line or 1
    if args.end_line is not None and args.end_line < start:
        return failure(f"end_line ({args.end_line}) is before start_line ({start})")
    if total and start > total:
        return failure(f"start_line {start} is past the end of {path}, which has {total} lines")
    if args.end_line is not None:
        end = min(args.end_line, total)
    else:
        end = min(total, start + MAX_READ_LINES - 1)
    chosen = lines[start - 1 : end] if total else []
    result: ToolResult = {
        "success": True,
        "path": str(path),
        "content": "".join(chosen),
        "encoding": fmt.label,
        "size": size,
        "lines": total,
        "truncated": end < total,
        "line_range": [start, end] if total else [0, 0],
    }
    if fmt.bom:
        result["bom"] = True
    if fmt.newline == "\r\n":
        result["line_endings"] = "crlf"
    return result


def _hidden_from_model(policy: SandboxPolicy, root: Path | None = None) -> Callable[[Entry], bool]:
    """Walk filter: secrets and blocked folders are left out of listings and searches."""
    return HiddenFromModel(policy, root)


def _folder(policy: SandboxPolicy, raw: str, access: Access) -> Path | ToolResult:
    """The folder to walk (search also takes a single file), or a failure saying why not."""
    path = policy.resolve(raw, access=access)
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        return failure(describe_os_error(exc, path, what="folder"))
    if stat.S_ISDIR(mode) or (access == "search" and stat.S_ISREG(mode)):
        return path
    if stat.S_ISREG(mode):
        return failure(f"{path} is a file, not a folder; use read_file to read it")
    return failure(f"{path} is a {kind_of(mode)}, not a folder")


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
    try:
        for entry in walk:
            if (
                args.filter_extension
                and entry.kind != "directory"
                and not entry.name.lower().endswith(args.filter_extension)
            ):
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
        return failure(describe_os_error(exc, root, what="folder"))
    entries.sort(key=lambda e: [part.casefold() for part in str(e["name"]).split(os.sep)])
    return {
        "success": True,
        "path": str(root),
        "entries": entries,
        "total": len(entries),
        "truncated": truncated or walk.stopped is not None,
    }


def search_files(ctx: ToolContext, args: SearchFilesArgs) -> ToolResult:
    root = _folder(ctx.policy, args.path, "search")
    if isinstance(root, dict):
        return root
    walk = Walk(
        root,
        max_depth=SEARCH_MAX_DEPTH,
        skip=_hidden_from_model(ctx.policy, root),
        cancel=ctx.cancel,
        stat_entries=False,
    )
    search = Search(args, rg=search_rg.rg_binary(), cancel=ctx.cancel, deadline=walk.deadline)
    try:
        search.run(single_file(root) if root.is_file() else walk)
    except OSError as exc:
        return failure(describe_os_error(exc, root, what="folder"))
    return {
        "success": True,
        "query": args.query,
        "search_type": args.search_type,
        "results": search.results,
        "total_files": len(search.results),
        "total_matches": search.total_matches,
        "files_scanned": search.scanned,
        "truncated": search.truncated or walk.stopped is not None or walk.depth_limited,
    }
