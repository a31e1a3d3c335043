"""The read-only tools: read_file, list_directory, search_files (design document section 5.1)."""

from __future__ import annotations

import base64
import fnmatch
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

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
from tray_app.tools.text_codec import EncodingProblem, TextFormat, decode, detect_bom

MAX_READ_BYTES = 1024 * 1024
MAX_READ_LINES = 500
MAX_LIST_ENTRIES = 500
MAX_SCAN_FILES = 1000  # files whose content is searched
MAX_NAME_FILES = 20_000  # files whose name is checked (cheap: no read)
MAX_SEARCH_FILE_BYTES = 500 * 1024
MAX_MATCHES_PER_FILE = 10
SEARCH_MAX_DEPTH = 32
MATCH_TEXT_CHARS = 200
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


def _hidden_from_model(policy: SandboxPolicy) -> Callable[[Entry], bool]:
    """Walk filter: secrets and blocked folders are left out of listings and searches."""

    def skip(entry: Entry) -> bool:
        return policy.is_secret_entry(entry.path) or policy.is_blocked(entry.path)

    return skip


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
        skip=_hidden_from_model(ctx.policy),
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


class _NameMatcher:
    """Globs (``*.ts``) via fnmatch on names; plain text matches part of a name."""

    def __init__(self, query: str, case_sensitive: bool) -> None:
        pattern = query.strip()
        while pattern.startswith(("**/", "*/")):
            pattern = pattern.split("/", 1)[1]
        self.on_path = "/" in pattern
        self.glob = any(ch in pattern for ch in "*?[")
        self.case_sensitive = case_sensitive
        self.pattern = pattern if case_sensitive else pattern.casefold()

    def __call__(self, entry: Entry) -> bool:
        subject = entry.rel.replace(os.sep, "/") if self.on_path else entry.name
        if not self.case_sensitive:
            subject = subject.casefold()
        if self.glob:
            return fnmatch.fnmatchcase(subject, self.pattern)
        return self.pattern in subject


def _line_matches(text: str, query: str, case_sensitive: bool) -> list[dict[str, Any]]:
    needle = query if case_sensitive else query.lower()
    found: list[dict[str, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        hay = line if case_sensitive else line.lower()
        column = hay.find(needle)
        if column < 0:
            continue
        shown = line.strip()
        if len(shown) > MATCH_TEXT_CHARS:
            begin = max(0, column - MATCH_TEXT_CHARS // 3)
            shown = line[begin : begin + MATCH_TEXT_CHARS].strip() + " …"
            shown = ("… " if begin else "") + shown
        found.append({"line": number, "text": shown, "column": column + 1})
        if len(found) >= MAX_MATCHES_PER_FILE:
            break
    return found


def _file_text(path: Path) -> str | None:
    """Text of a searchable file: regular, at most 500 KB, not binary; else None."""
    try:
        fd_data, _ = read_regular(path, MAX_SEARCH_FILE_BYTES)
    except (OSError, NotReadable):
        return None
    if len(fd_data) > MAX_SEARCH_FILE_BYTES:
        return None
    found = detect_bom(fd_data)
    if found is not None:  # UTF-16 text from Windows tools is searched like any other
        return fd_data[len(found[0]) :].decode(found[1], errors="replace")
    if looks_binary(fd_data):
        return None
    return fd_data.decode("utf-8", errors="replace")


def search_files(ctx: ToolContext, args: SearchFilesArgs) -> ToolResult:
    root = _folder(ctx.policy, args.path, "search")
    if isinstance(root, dict):
        return root
    walk = Walk(
        root,
        max_depth=SEARCH_MAX_DEPTH,
        skip=_hidden_from_model(ctx.policy),
        cancel=ctx.cancel,
    )
    search = _Search(args)
    try:
        search.run(_single_file(root) if root.is_file() else walk)
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


class _Search:
    """One search's state: results so far, counts, and whether a cap cut it short."""

    def __init__(self, args: SearchFilesArgs) -> None:
        self.args = args
        self.by_name = args.search_type in ("filename", "both")
        self.by_content = args.search_type in ("content", "both")
        self.matcher = _NameMatcher(args.query, args.case_sensitive)
        self.exts = tuple(args.file_extensions or ())
        self.results: list[dict[str, Any]] = []
        self.total_matches = 0
        self.scanned = 0  # files looked at
        self.read = 0  # files whose content was searched
        self.truncated = False

    def run(self, entries: Iterable[Entry]) -> None:
        for entry in entries:
            if (
                self.total_matches >= self.args.max_results
                or self.read >= MAX_SCAN_FILES
                or self.scanned >= MAX_NAME_FILES
            ):
                self.truncated = True
                return
            self.visit(entry)

    def visit(self, entry: Entry) -> None:
        if entry.kind == "directory":
            if self.by_name and not self.exts and self.matcher(entry):
                self.add(_name_hit(entry), 1)
            return
        if not is_regular(entry) or (self.exts and not entry.name.lower().endswith(self.exts)):
            return
        self.scanned += 1
        if self.by_name and self.matcher(entry):
            self.add(_name_hit(entry), 1)
            return
        if (
            not self.by_content
            or entry.info.st_size > MAX_SEARCH_FILE_BYTES
            or entry.info.st_nlink > 1  # other names may be outside (sandbox docstring)
        ):
            return
        self.read += 1
        text = _file_text(entry.path)
        if text is None:
            return
        matches = _line_matches(text, self.args.query, self.args.case_sensitive)
        room = self.args.max_results - self.total_matches
        if len(matches) > room:
            matches, self.truncated = matches[:room], True
        if matches:
            self.add({"path": str(entry.path), "type": "file", "matches": matches}, len(matches))

    def add(self, result: dict[str, Any], count: int) -> None:
        self.results.append(result)
        self.total_matches += count


def _name_hit(entry: Entry) -> dict[str, Any]:
    """A name match: line 0 means "the name matched", not a line of the file."""
    return {
        "path": str(entry.path),
        "type": entry.kind,
        "matches": [{"line": 0, "text": entry.name, "column": 0}],
    }


def _single_file(path: Path) -> list[Entry]:
    info = os.lstat(path)
    return [Entry(path=path, rel=path.name, name=path.name, depth=0, kind="file", info=info)]
