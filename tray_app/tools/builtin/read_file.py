"""read_file: a text file's lines, or its bytes as base64; bounded in bytes and lines."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP, _clamp, _encoding
from tray_app.tools.fit import cut_note, json_chars
from tray_app.tools.fs.fs_safe import (
    NotReadable,
    human_size,
    looks_binary,
    os_failure,
    read_regular,
    split_lines,
)
from tray_app.tools.fs.text_codec import (
    EncodingProblem,
    TextFormat,
    decode,
    detect_bom,
)
from tray_app.tools.result import ToolResult, coded_failure, failure

MAX_READ_BYTES = 1024 * 1024

MAX_READ_LINES = 500


class ReadFileArgs(ToolArgs):
    path: str = Field(description="The file to read. " + PATH_HELP)
    encoding: str | None = Field(
        default=None,
        description=(
            "How to decode the file. Leave it out to detect (a byte-order mark means UTF-8 or "
            "UTF-16, else utf-8); or utf-8, utf-16, latin1, another codec name such as cp1252, "
            "or base64 for binary files."
        ),
    )
    start_line: int | None = Field(
        default=None, description="First line to return (1 = first line of the file)."
    )
    end_line: int | None = Field(
        default=None,
        description="Last line to return (inclusive). Without it at most 500 lines are returned.",
    )

    @field_validator("encoding", mode="before")
    @classmethod
    def _enc(cls, value: Any) -> Any:
        return _encoding(value)

    @field_validator("start_line", "end_line", mode="before")
    @classmethod
    def _line(cls, value: Any) -> Any:
        return _clamp(value, 1, 10**9)


def read_file(ctx: ToolContext, args: ReadFileArgs) -> ToolResult:
    path = ctx.policy.resolve(args.path, access="read")
    try:
        data, info = read_regular(path, MAX_READ_BYTES)
    except NotReadable as exc:
        return coded_failure(exc)
    except OSError as exc:
        return os_failure(exc, path)
    if len(data) > MAX_READ_BYTES:
        size = max(info.st_size, len(data))
        return failure(
            f"file too large: {path} is {human_size(size)}; read_file reads files up to 1 MB "
            "(use search_files to find lines in it)",
            code="file_too_large",
            params={"path": path, "size": size, "max_size": MAX_READ_BYTES},
        )
    if args.encoding == "base64":
        if args.start_line is not None or args.end_line is not None:
            return failure(
                "start_line and end_line need a text encoding (such as utf-8 or latin1)",
                code="lines_need_text",
            )
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
            "read it with encoding base64 if you really need its bytes",
            code="binary_file",
            params={"path": path, "size": len(data)},
        )
    try:
        text, fmt = decode(data, args.encoding)
    except EncodingProblem as exc:
        return coded_failure(exc, message=f"{path} is {exc}", path=path)
    return _text_result(path, text, len(data), args, fmt, room=ctx.result_chars)


def _text_result(
    path: Path,
    text: str,
    size: int,
    args: ReadFileArgs,
    fmt: TextFormat,
    *,
    room: int | None = None,
) -> ToolResult:
    """The chosen lines; with ``room`` (the characters the model may receive) only as many
    whole lines as fit, and ``next_start_line`` saying where to go on."""
    lines = split_lines(text)
    total = len(lines)
    start = args.start_line or 1
    if args.end_line is not None and args.end_line < start:
        return failure(
            f"end_line ({args.end_line}) is before start_line ({start})",
            code="lines_reversed",
            params={"start": start, "end": args.end_line},
        )
    if total and start > total:
        return failure(
            f"start_line {start} is past the end of {path}, which has {total} lines",
            code="start_past_end",
            params={"path": path, "start": start, "n": total},
        )
    if args.end_line is not None:
        end = min(args.end_line, total)
    else:
        end = min(total, start + MAX_READ_LINES - 1)
    result: ToolResult = {
        "success": True,
        "path": str(path),
        "content": "",
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
    chosen = lines[start - 1 : end] if total else []
    partial = False
    if room is not None and chosen:
        chosen, partial = _fitting_lines(chosen, room - json_chars(result) - ROOM_FOR_FACTS)
        if not partial:
            end = start + len(chosen) - 1
        result["line_range"] = [start, end if not partial else start]
        result["truncated"] = partial or end < total
    result["content"] = "".join(chosen)
    if partial:
        result["partial_line"] = True  # one line longer than the room: its start only
        result["next_start_line"] = start + 1 if start < total else None
    elif end < total:
        result["next_start_line"] = end + 1
    return result


ROOM_FOR_FACTS = 80  # next_start_line, partial_line and the like


def _fitting_lines(lines: list[str], room: int) -> tuple[list[str], bool]:
    """The first whole lines whose JSON fits ``room`` characters; when not even one line
    fits, the start of the first line (and True)."""
    used = 0
    for index, line in enumerate(lines):
        cost = json_chars(line) - 2  # without the quotes
        if used + cost > room:
            if index:
                return lines[:index], False
            keep = max(0, room - len(cut_note(len(line))))
            while keep and json_chars(line[:keep]) - 2 > room:  # escapes take more room
                keep = keep * 3 // 4
            return [line[:keep] + cut_note(len(line) - keep)], True
        used += cost
    return lines, False


TOOL = Tool(
    name="read_file",
    description=(
        "Read a text file and return its content. Files up to 1 MB; at most 500 lines per "
        "call (fewer when they are long: line_range says which lines came, next_start_line "
        "where to go on). Binary files are refused unless encoding is base64. Secret files "
        "(.env, keys, passwords) cannot be read."
    ),
    args_model=ReadFileArgs,
    risk=Risk.READ,
    handler=read_file,
)
