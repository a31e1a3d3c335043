"""The ``mcp_servers`` setting as the page sees and edits it.

Secrets written in the settings file (plain ``env``/``headers`` values) never leave Core: every
view of the settings (``get_settings``, ``settings_updated``, a save's answer, a refusal) shows
them as ``***``, like ``ServerConfig.public``. When the page saves a server back, a ``***``
under the same server and key means "keep what the file has". Each server the change adds or
edits is checked on its own, and a refusal names the field (``mcp_servers.NAME.FIELD``), so the
form can show the error next to it; servers the change leaves alone are not checked again (one
broken server in the file never blocks saving the others).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from tray_app.base.errors import InvalidRequest, RefusedServerName
from tray_app.mcp.config import (
    KEYRING_PREFIX,
    MAX_SERVERS,
    Coded,
    RefusedServer,
    ServerConfig,
    claude_block,
    refusal_code,
)

MASK = "***"
MAX_PASTE = 200_000
SECRET_KEYS = ("env", "headers")


def _mask_value(value: object) -> object:
    if isinstance(value, str) and value and not value.startswith(KEYRING_PREFIX):
        return MASK
    return value


def mask_servers(raw: dict[str, Any]) -> dict[str, Any]:
    """The servers with every secret written in the file replaced by ``***``."""
    out: dict[str, Any] = {}
    for name, entry in raw.items():
        if not isinstance(entry, dict):
            out[name] = entry
            continue
        copy = dict(entry)
        for key in SECRET_KEYS:
            values = copy.get(key)
            if isinstance(values, dict):
                copy[key] = {k: _mask_value(v) for k, v in values.items()}
        out[name] = copy
    return out


def public_settings(data: dict[str, Any]) -> dict[str, Any]:
    """A ``Settings.model_dump()`` safe to show: the MCP servers masked."""
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):
        return {**data, "mcp_servers": mask_servers(servers)}
    return data


def prepare_servers(
    new: object, old: dict[str, Any], codes: Coded | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The servers to save (``***`` restored from ``old``) and the errors of the changed ones,
    keyed ``mcp_servers.NAME.FIELD``; ``codes`` (when given) gets the coded ones by the same
    key (a refused name: the form says it in the page's language)."""
    if not isinstance(new, dict):
        return {}, {"mcp_servers": "must be an object of servers by name"}
    if len(new) > MAX_SERVERS:
        return {}, {"mcp_servers": f"at most {MAX_SERVERS} servers"}
    servers: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, entry in new.items():
        where = f"mcp_servers.{name}"
        if not isinstance(entry, dict):
            errors[where] = "must be an object"
            continue
        entry = _unmask(entry, old.get(name), where, errors)
        servers[name] = entry
        if _same(entry, old.get(name)):
            continue  # unchanged: saved as it is, whatever the file holds
        try:
            ServerConfig.model_validate({**entry, "name": name})
        except ValidationError as exc:
            for problem in exc.errors():
                loc = [str(p) for p in problem.get("loc", ())]
                field = loc[0] if loc else ""
                if field in ("name", ""):
                    field = "name" if field else "command"
                key = f"{where}.{field}"
                if key in errors:
                    continue
                errors[key] = str(problem.get("msg", "invalid"))
                coded = refusal_code(problem)
                if coded is not None and codes is not None:
                    codes[key] = coded
    return servers, errors


def _unmask(
    entry: dict[str, Any], old: object, where: str, errors: dict[str, str]
) -> dict[str, Any]:
    copy = dict(entry)
    for key in SECRET_KEYS:
        values = copy.get(key)
        if not isinstance(values, dict):
            continue
        before = old.get(key) if isinstance(old, dict) else None
        before = before if isinstance(before, dict) else {}
        restored: dict[str, Any] = {}
        for k, v in values.items():
            if v == MASK:
                if k in before:
                    restored[k] = before[k]
                else:
                    errors[f"{where}.{key}"] = (
                        f"the hidden value of {k} is not known here: type it again"
                    )
                    restored[k] = v
            else:
                restored[k] = v
        copy[key] = restored
    return copy


def _same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def parse_paste(text: str) -> dict[str, Any]:
    """A pasted Claude Desktop config: the block ``mcp import`` takes, and the servers that
    keep plain secrets (the page suggests the keyring). ``{"servers": block, "plain_secrets":
    [names]}``; InvalidRequest says what is wrong."""
    if len(text) > MAX_PASTE:
        raise InvalidRequest("the pasted text is too long for a config")
    try:
        block = claude_block(json.loads(text))
    except json.JSONDecodeError as exc:
        raise InvalidRequest(f"not JSON: {exc.msg} (line {exc.lineno})") from None
    except RefusedServer as exc:
        if exc.code is None:
            raise InvalidRequest(str(exc)) from None
        raise RefusedServerName(
            str(exc), server=exc.server, code=exc.code, params=exc.params
        ) from None
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
