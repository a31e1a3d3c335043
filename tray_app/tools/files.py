"""The file tools, each declared in its own module (args model, handler, preview and ``TOOL``
together): the six seed tools in their original order, then the ones issue 11 added.

This module only lists them and makes their answers printable: policy and OS errors become
sentences and every string is valid UTF-8. Every path goes through
``sandbox.SandboxPolicy.resolve``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, cast

from tray_app.errors import SandboxViolation
from tray_app.tools import (
    allowed_dirs,
    create_directory,
    delete_file,
    dir_tree,
    edit_file,
    file_info,
    list_directory,
    move_file,
    read_file,
    read_many,
    search_files,
    write_file,
)
from tray_app.tools.base import Handler, Tool, ToolContext, ToolResult, coded_failure
from tray_app.tools.fs_safe import os_failure, printable


def _printable(handler: Handler) -> Handler:
    """Run ``handler``; policy and OS errors become sentences, every string valid UTF-8."""

    @functools.wraps(handler)
    def run(ctx: ToolContext, args: Any) -> ToolResult:
        try:
            result = handler(ctx, args)
        except SandboxViolation as exc:
            result = coded_failure(exc)
        except OSError as exc:
            result = os_failure(exc, exc.filename or "", what="file or folder")
        cleaned: ToolResult = printable(result)
        return cleaned

    return run


def _wrapped(tool: Tool) -> Tool:
    """A tool declared in its own module, with its handler and preview made printable."""
    preview = _printable(tool.preview) if tool.preview is not None else None
    handler = cast("Handler", tool.handler)  # the file tools are all blocking
    return dataclasses.replace(tool, handler=_printable(handler), preview=preview)


#: One module per tool, in the order the model sees them.
_MODULES = (
    read_file,
    write_file,
    list_directory,
    search_files,
    create_directory,
    delete_file,
    edit_file,
    move_file,
    read_many,
    dir_tree,
    file_info,
    allowed_dirs,
)
FILE_TOOLS: list[Tool] = [_wrapped(module.TOOL) for module in _MODULES]
