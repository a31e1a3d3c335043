"""A Claude Desktop config pasted into Settings: the same block ``metona-tray mcp import``
takes, plus which servers keep secrets written in plain text (the page suggests the keyring)."""

from __future__ import annotations

import json
from typing import Any

from tray_app.errors import InvalidRequest
from tray_app.mcp.config import KEYRING_PREFIX, claude_block

MAX_PASTE = 200_000


def parse_paste(text: str) -> dict[str, Any]:
    """``{"servers": block, "plain_secrets": [names]}``; InvalidRequest says what is wrong."""
    if len(text) > MAX_PASTE:
        raise InvalidRequest("the pasted text is too long for a config")
    try:
        block = claude_block(json.loads(text))
    except json.JSONDecodeError as exc:
        raise InvalidRequest(f"not JSON: {exc.msg} (line {exc.lineno})") from None
    except ValueError as exc:
        raise InvalidRequest(str(exc)) from None
    if not block:
        raise InvalidRequest("no servers in the pasted config")
    plain = [
        name
        for name, entry in block.items()
        if any(
            isinstance(v, str) and v and not v.startswith(KEYRING_PREFIX)
            for key in ("env", "headers")
            if isinstance(entry.get(key), dict)
            for v in entry[key].values()
        )
    ]
    return {"servers": block, "plain_secrets": plain}
