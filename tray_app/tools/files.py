"""The file tools: the six seed tools in their original order, then the
ones declared in their own modules (issue 11).

Handlers live in ``fs_read`` (read-only tools) and ``fs_write`` (tools that change files);
argument models in ``file_args``; approval previews in ``previews``; every path goes through
``sandbox.SandboxPolicy.resolve``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, cast

from tray_app.errors import SandboxViolation
from tray_app.tools import (
    allowed_dirs,
    dir_tree,
    edit_file,
    file_info,
    move_file,
    read_many,
)
from tray_app.tools.base import Handler, Risk, Tool, ToolContext, ToolResult, failure
from tray_app.tools.file_args import (
    CreateDirectoryArgs,
    DeleteFileArgs,
    ListDirectoryArgs,
    ReadFileArgs,
    SearchFilesArgs,
    WriteFileArgs,
)
from tray_app.tools.fs_read import list_directory, read_file, search_files
from tray_app.tools.fs_safe import describe_os_error, printable
from tray_app.tools.fs_write import create_directory, delete_file, write_file
from tray_app.tools.previews import create_preview, delete_preview, write_preview


def _printable(handler: Handler) -> Handler:
    """Run ``handler``; policy and OS errors become sentences, every string valid UTF-8."""

    @functools.wraps(handler)
    def run(ctx: ToolContext, args: Any) -> ToolResult:
        try:
            result = handler(ctx, args)
        except SandboxViolation as exc:
            result = failure(str(exc))
        except OSError as exc:
            result = failure(describe_os_error(exc, exc.filename or "", what="file or folder"))
        cleaned: ToolResult = printable(result)
        return cleaned

    return run


FILE_TOOLS: list[Tool] = [
    Tool(
        name="read_file",
        description=(
            "Read a text file and return its content. Files up to 1 MB; at most 500 lines per "
            "call, use start_line and end_line to read further. Binary files are refused "
            "unless encoding is base64. Secret files (.env, keys, passwords) cannot be read."
        ),
        args_model=ReadFileArgs,
        risk=Risk.READ,
        handler=_printable(read_file),
        titles={"en": "Read file", "zh-CN": "读取文件"},
    ),
    Tool(
        name="write_file",
        description=(
            "Write content to a file: creates it, or replaces its whole content if it exists. "
            "Missing parent folders are created. Content up to 5 MB. The user may be asked "
            "to approve."
        ),
        args_model=WriteFileArgs,
        risk=Risk.WRITE,
        handler=_printable(write_file),
        preview=_printable(write_preview),
        asks_when_exists=True,
        shallow_undo=True,
        titles={"en": "Write file", "zh-CN": "写入文件"},
    ),
    Tool(
        name="list_directory",
        description=(
            "List the files and folders in a folder with their type, size and modification "
            "time. Set recursive to true to include sub-folders (up to max_depth levels). "
            "At most 500 entries."
        ),
        args_model=ListDirectoryArgs,
        risk=Risk.READ,
        handler=_printable(list_directory),
        titles={"en": "List folder", "zh-CN": "列出目录"},
    ),
    Tool(
        name="search_files",
        description=(
            "Find files below a folder by name (a glob such as '*.py') or lines of text inside "
            "files (plain text, not a regular expression). Returns matching files with line "
            "numbers; line 0 means the file name matched."
        ),
        args_model=SearchFilesArgs,
        risk=Risk.READ,
        handler=_printable(search_files),
        titles={"en": "Search files", "zh-CN": "搜索文件"},
    ),
    Tool(
        name="create_directory",
        description="Create a folder, and any missing parent folders.",
        args_model=CreateDirectoryArgs,
        risk=Risk.WRITE,
        handler=_printable(create_directory),
        preview=_printable(create_preview),
        shallow_undo=True,
        titles={"en": "Create folder", "zh-CN": "创建文件夹"},
    ),
    Tool(
        name="delete_file",
        description=(
            "Delete a file or an empty folder (it is moved to the trash when possible). "
            "To delete a folder with everything in it, set recursive to true. "
            "The user is always asked to approve."
        ),
        args_model=DeleteFileArgs,
        risk=Risk.DESTRUCTIVE,
        handler=_printable(delete_file),
        preview=_printable(delete_preview),
        titles={"en": "Delete", "zh-CN": "删除"},
    ),
]


def _wrapped(tool: Tool) -> Tool:
    """A tool declared in its own module, with its handler and preview made printable."""
    preview = _printable(tool.preview) if tool.preview is not None else None
    handler = cast("Handler", tool.handler)  # the file tools are all blocking
    return dataclasses.replace(tool, handler=_printable(handler), preview=preview)


# Tools in their own modules (args model, handler, preview and declaration together).
_OWN_MODULES = (edit_file, move_file, read_many, dir_tree, file_info, allowed_dirs)
FILE_TOOLS += [_wrapped(module.TOOL) for module in _OWN_MODULES]
