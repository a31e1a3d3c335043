"""A file tool's answers made printable: policy and OS errors become sentences and every string
is valid UTF-8. Kept apart from ``files`` so one file tool can be wrapped when it is first
called (``tools.lazy``) without importing the others."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, cast

from tray_app.base.errors import SandboxViolation
from tray_app.tools.base import Handler, Tool, ToolContext
from tray_app.tools.fs.fs_safe import os_failure, printable
from tray_app.tools.result import ToolResult, coded_failure


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


def wrapped(tool: Tool) -> Tool:
    """A file tool declared in its own module, with its handler and preview made printable."""
    preview = _printable(tool.preview) if tool.preview is not None else None
    handler = cast("Handler", tool.handler)  # the file tools are all blocking
    return dataclasses.replace(tool, handler=_printable(handler), preview=preview)
