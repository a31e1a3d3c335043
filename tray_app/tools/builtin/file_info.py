"""get_file_info: what a path is, without reading it whole into the model's context.

Type, size, times, permissions, and for a text file its line count and encoding (BOM, line
endings), so a model can pick read_file's range or edit_file over write_file. The path is
resolved like a read (secrets and blocked folders refused); a link is described as a link.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from pydantic import Field

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP
from tray_app.tools.fs.fs_safe import (
    NotReadable,
    human_size,
    iso_time,
    kind_of,
    looks_binary,
    os_failure,
    read_regular,
)
from tray_app.tools.fs.opened import Opened, opened
from tray_app.tools.fs.text_codec import EncodingProblem, decode, detect_bom
from tray_app.tools.result import ToolResult

MAX_COUNT_BYTES = 5 * 1024 * 1024  # larger files get no line count


class GetFileInfoArgs(ToolArgs):
    path: str = Field(description="The file or folder to describe. " + PATH_HELP)


def get_file_info(ctx: ToolContext, args: GetFileInfoArgs) -> ToolResult:
    path = ctx.policy.resolve(args.path, access="read")
    try:
        with opened(path) as here:
            return _describe(here)
    except OSError as exc:
        return os_failure(exc, path, what="file or folder")


def _describe(here: Opened) -> ToolResult:
    """The facts, every one taken through the entry's opened folder."""
    info = here.lstat()
    result: dict[str, Any] = {
        "success": True,
        "path": str(here.path),
        "type": kind_of(info.st_mode),
        "size": info.st_size,
        "size_text": human_size(info.st_size),
        "modified": iso_time(info.st_mtime),
        "accessed": iso_time(info.st_atime),
        "changed": iso_time(info.st_ctime),
        "permissions": stat.filemode(info.st_mode),
        "mode": oct(stat.S_IMODE(info.st_mode)),
        "readable": here.access(os.R_OK),
        "writable": here.access(os.W_OK),
    }
    birth = getattr(info, "st_birthtime", None)
    if birth:
        result["created"] = iso_time(birth)
    if stat.S_ISDIR(info.st_mode):
        try:
            result["entries"] = here.count_entries()
        except OSError:
            result["entries"] = None
    elif stat.S_ISREG(info.st_mode):
        result.update(_text_facts(here, info.st_size))
    return result


def _text_facts(here: Opened, size: int) -> dict[str, Any]:
    if size > MAX_COUNT_BYTES:
        return {"text": None, "note": f"larger than {human_size(MAX_COUNT_BYTES)}: not examined"}
    try:
        data, _ = read_regular(here, MAX_COUNT_BYTES)
    except (OSError, NotReadable) as exc:
        return {"text": None, "note": str(exc)}
    if detect_bom(data) is None and looks_binary(data):
        return {"text": False}
    try:
        text, fmt = decode(data)
    except EncodingProblem:
        return {"text": False, "note": "not UTF-8 or UTF-16 text (try read_file with latin1)"}
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return {
        "text": True,
        "encoding": fmt.label,
        "bom": bool(fmt.bom),
        "line_endings": "crlf" if fmt.newline == "\r\n" else "lf",
        "lines": lines,
    }


TOOL = Tool(
    name="get_file_info",
    description=(
        "Describe a file or folder without reading it: type, size, modification times, "
        "permissions, and for text files the number of lines, the encoding and line endings."
    ),
    args_model=GetFileInfoArgs,
    risk=Risk.READ,
    handler=get_file_info,
)
