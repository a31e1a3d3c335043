"""MCP server settings: Claude Desktop's ``mcpServers`` shape plus our own keys.

A server is ``{"command": ..., "args": [...], "env": {...}, "cwd": ...}`` (stdio) or
``{"url": ..., "headers": {...}}`` (Streamable HTTP), plus ``enabled``, ``timeout_s`` and
``trust``. The settings file keeps the raw objects (``Settings.mcp_servers``) so that one broken
server never costs the others: each is parsed here on its own and a bad one becomes an error
line instead. Secrets need not be written in the file: a value ``"keyring:NAME"`` in ``env`` or
``headers`` is read from the OS keyring (username ``mcp:NAME``) when the server starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

Trust = Literal["ask", "trust_read_only"]
SecretLookup = Callable[[str], "str | None"]

KEYRING_PREFIX = "keyring:"
MAX_SERVERS = 64
# An idle server is probed every ``ping_s`` seconds; 0 switches the probe off. Below 5 s the
# probes would be most of the traffic a remote server sees (and a busy machine's 20 s answer
# window would overlap the next one); above an hour a dead server goes unnoticed too long.
PING_MIN_S = 5.0
PING_MAX_S = 3_600.0
# Letters and digits of any script (a Chinese user names servers in Chinese), spaces, '.', '_'
# and '-': no slashes, controls, bidi or zero-width characters (\w has none of them). Matched
# whole (fullmatch): a '$' would let a trailing line break through.
NAME_MAX = 64
_NAME = re.compile(r"[^\W_][\w .-]{0,63}")
_NAME_CHAR = re.compile(r"[\w .-]")
# Why a name is refused, by code (the page's ``mcp.<code>`` and the terminal say it in the
# user's language from the params); the English here is the detail logs and ``--json`` keep.
NAME_RULES = {
    "name_empty": "a server needs a name",
    "name_bad_char": "a server name cannot contain {codepoint}: use letters or digits (any "
    "script), spaces, '.', '_' or '-'",
    "name_bad_start": "a server name starts with a letter or a digit",
    "name_too_long": "a server name is at most {max} characters (this one has {count})",
}


def name_problem(name: str) -> tuple[str, dict[str, str | int]] | None:
    """Why the naming rule refuses ``name``, as a code and its params; None when it takes it.
    Only explains the rule (``_NAME``), never widens it."""
    if _NAME.fullmatch(name):
        return None
    if not name:
        return "name_empty", {}
    bad = next((c for c in name if not _NAME_CHAR.fullmatch(c)), None)
    if bad is not None:
        return "name_bad_char", {"char": bad, "codepoint": f"U+{ord(bad):04X}"}
    if len(name) > NAME_MAX:
        return "name_too_long", {"max": NAME_MAX, "count": len(name)}
    return "name_bad_start", {}


class ServerConfig(BaseModel):
    """One server, validated; ``transport`` says which half of the shape it uses."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    name: str
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    timeout_s: float = Field(default=60.0, gt=0.0, le=3_600.0)
    trust: Trust = "ask"
    ping_s: float = 30.0  # idle liveness probe (mcp/liveness.py): 0 or PING_MIN_S..PING_MAX_S
    disabled_tools: list[str] = Field(default_factory=list)  # left out of every turn
    network: bool = True  # under the bubblewrap sandbox: may the server reach the network
    type: Literal["stdio", "http", "streamable-http", "sse"] | None = (
        None  # as other hosts write it
    )

    @field_validator("name")
    @classmethod
    def _name_is_plain(cls, value: str) -> str:
        problem = name_problem(value)
        if problem is not None:
            code, params = problem
            raise PydanticCustomError(f"mcp_{code}", NAME_RULES[code], params)
        return value

    @field_validator("ping_s")
    @classmethod
    def _ping_in_range(cls, value: float) -> float:
        if value != 0 and not PING_MIN_S <= value <= PING_MAX_S:
            raise ValueError(
                f"the idle check is 0 (off) or {PING_MIN_S:g} to {PING_MAX_S:g} seconds"
            )
        return value

    @field_validator("url")
    @classmethod
    def _url_is_http(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("the url must start with http:// or https://")
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either a command (a local server) or a url (a remote one)")
        return self

    @property
    def transport(self) -> Literal["stdio", "http", "sse"]:
        """stdio for a command; for a url Streamable HTTP, or the older HTTP+SSE on request."""
        if self.command:
            return "stdio"
        return "sse" if self.type == "sse" else "http"

    def secret_names(self) -> list[str]:
        """The keyring names this server refers to (for ``mcp list`` and the settings page)."""
        values = [*self.env.values(), *self.headers.values()]
        return [v[len(KEYRING_PREFIX) :] for v in values if v.startswith(KEYRING_PREFIX)]

    def public(self) -> dict[str, Any]:
        """What may be shown or printed: secrets written in the file are masked."""
        data = self.model_dump(exclude_none=True)
        for key in ("env", "headers"):
            data[key] = {k: _mask(v) for k, v in data.get(key, {}).items()}
        return data


def _mask(value: str) -> str:
    return value if value.startswith(KEYRING_PREFIX) or not value else "***"


# What may follow ``keyring:`` when the popup stores a secret: letters and digits of any script,
# spaces, '.', '_' and '-' (a server's name, a dot, a variable or header name).
_SECRET_NAME = re.compile(r"[^\W_][\w .-]{0,127}")
MAX_SECRET = 8192


def check_secret_name(name: str) -> None:
    """ValueError unless ``name`` is a plain keyring reference name."""
    if not _SECRET_NAME.fullmatch(name):
        raise ValueError(
            "a keyring name is 1 to 128 letters or digits (any script), spaces, '.', '_' or "
            "'-', and starts with a letter or digit"
        )


def check_secret(secret: str) -> None:
    """ValueError for a secret that cannot be an env value or a header: too long, or with
    control characters (a line break in a header would start another header)."""
    if len(secret) > MAX_SECRET:
        raise ValueError(f"a secret is at most {MAX_SECRET} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in secret):
        raise ValueError("a secret cannot contain line breaks or other control characters")


def keyring_user(name: str) -> str:
    """The keyring username a ``keyring:NAME`` reference is stored under."""
    return f"mcp:{name}"


class MissingSecret(ValueError):
    """A ``keyring:NAME`` reference whose secret is not in the keyring."""


class KeyringUnreadable(MissingSecret):
    """A ``keyring:NAME`` reference whose secret may be there, but the keyring cannot be read
    (locked, its service gone); ``code`` lets the page say so in the user's language."""

    code = "keyring_unreadable"


class SecretUnavailable(Exception):
    """Raised by a lookup whose keyring cannot be read (locked, its service gone): the secret
    may well be there, so "store it" would be the wrong advice."""


def resolve_secrets(values: Mapping[str, str], lookup: SecretLookup | None) -> dict[str, str]:
    """Replace ``keyring:NAME`` values by the secrets they name."""
    out: dict[str, str] = {}
    for key, value in values.items():
        if value.startswith(KEYRING_PREFIX):
            name = value[len(KEYRING_PREFIX) :]
            try:
                secret = lookup(keyring_user(name)) if lookup is not None else None
            except SecretUnavailable as exc:
                raise KeyringUnreadable(
                    f"{key} refers to the keyring entry {name!r}, but the system keyring "
                    f"cannot be read: {exc} (save the server again to be asked for its "
                    "password, or start the keyring and restart the app)"
                ) from None
            if not secret:
                raise MissingSecret(
                    f"{key} refers to the keyring entry {name!r}, which is not there "
                    f"(store it with: keyring set metona-tray {keyring_user(name)})"
                )
            out[key] = secret
        else:
            out[key] = value
    return out


Coded = dict[str, dict[str, Any]]  # a refusal's ``{"code": ..., "params": {...}}`` by key


def refusal_code(problem: Mapping[str, Any]) -> dict[str, Any] | None:
    """A pydantic error's code and params when it is one of ours (the name's), else None."""
    kind = str(problem.get("type", ""))
    if not kind.startswith("mcp_"):
        return None
    return {"code": kind[len("mcp_") :], "params": dict(problem.get("ctx") or {})}


def parse_servers(
    raw: object, codes: Coded | None = None
) -> tuple[list[ServerConfig], dict[str, str]]:
    """Every valid server, and one sentence for each invalid one (by name); ``codes`` (when
    given) gets the coded ones, so the page and the terminal say them in their language."""
    servers: list[ServerConfig] = []
    errors: dict[str, str] = {}
    if not isinstance(raw, Mapping):
        return servers, ({"mcp_servers": "must be an object of servers by name"} if raw else {})
    for name, entry in list(raw.items())[:MAX_SERVERS]:
        if not isinstance(entry, Mapping):
            errors[str(name)] = "must be an object"
            continue
        try:
            servers.append(ServerConfig.model_validate({**entry, "name": name}))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            errors[str(name)] = f"{where + ': ' if where else ''}{first.get('msg', 'invalid')}"
            coded = refusal_code(first)
            if coded is not None and codes is not None:
                codes[str(name)] = coded
    if len(raw) > MAX_SERVERS:
        errors["mcp_servers"] = f"only the first {MAX_SERVERS} servers are used"
    return servers, errors


class RefusedServer(ValueError):
    """A server of an imported or pasted config that the rules refuse; ``code`` and ``params``
    when its refusal is coded (a name), so the terminal and the page say it in their language."""

    def __init__(self, server: str, why: str, coded: dict[str, Any] | None) -> None:
        super().__init__(f"server {server!r}: {why}")
        self.server = server
        self.code: str | None = coded["code"] if coded else None
        self.params: dict[str, Any] = dict(coded["params"]) if coded else {}


def read_claude_config(path: Path) -> dict[str, dict[str, Any]]:
    """The ``mcpServers`` block of a Claude Desktop config file (or a bare block)."""
    return claude_block(json.loads(path.read_text(encoding="utf-8")))


def claude_block(data: object) -> dict[str, dict[str, Any]]:
    """The valid ``mcpServers`` block of parsed Claude Desktop JSON (``mcp import``, the
    page's paste); ValueError names the first bad server (``RefusedServer``)."""
    if not isinstance(data, dict):
        raise ValueError("the file does not hold a JSON object")
    block = data.get("mcpServers", data.get("mcp_servers", data))
    if not isinstance(block, dict):
        raise ValueError("mcpServers is not an object")
    codes: Coded = {}
    servers, errors = parse_servers(block, codes)
    if errors:
        name, why = next(iter(errors.items()))
        raise RefusedServer(name, why, codes.get(name))
    return {s.name: dict(block[s.name]) for s in servers}
