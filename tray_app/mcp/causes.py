"""Why an MCP server did not start, as a code and params the terminal says in words in the
user's language (``mcp_cli``), beside the English detail the logs and ``--json`` keep.

Known causes only: the keyring (``mcp/config.py``), a stdio command the OS would not start (by
its errno, ``os_reasons``), an address nothing answers at, a server that did not answer in time.
Anything else has no code and is shown as its detail, quoted.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tray_app.mcp.config import KeyringUnreadable
from tray_app.os_reasons import os_params

#: The HTTP libraries an MCP transport may use (the SDK's own fork among them): their errors
#: are matched by class name, so no one of them has to be imported here.
_HTTP_MODULES = frozenset({"httpx", "httpx2", "httpcore"})


def _http_error(exc: BaseException, name: str) -> bool:
    return any(
        c.__name__ == name and c.__module__.split(".")[0] in _HTTP_MODULES
        for c in type(exc).__mro__
    )


def failure_cause(exc: BaseException, transport: str) -> tuple[str | None, dict[str, Any]]:
    """``exc``'s code and params (``(None, {})`` when the cause is not one of the known)."""
    if isinstance(exc, KeyringUnreadable):
        return KeyringUnreadable.code, {}
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or _http_error(
        exc, "TimeoutException"
    ):
        return "timed_out", {}
    if _http_error(exc, "ConnectError"):
        return "unreachable", {}
    if transport == "stdio" and isinstance(exc, OSError) and exc.errno:
        return "spawn_failed", os_params(exc)
    return None, {}
