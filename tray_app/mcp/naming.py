"""What the model sees of an MCP tool: its name, description and schema, and its risk.

Model APIs accept tool names of ``[A-Za-z0-9_-]{1,64}``; an MCP tool becomes
``server__tool`` with every other character replaced, cut to 64 with a short hash when too
long, and made unique against the names already taken. Annotations are hints from a server we
do not control, so they only ever make a call *more* careful than a write, never less, unless
the user trusts that server's read-only tools.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from tray_app.tools.base import Risk, clean_schema

MAX_NAME = 64
MAX_DESCRIPTION = 2_000
MAX_SCHEMA_CHARS = 64_000
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _slug(text: str) -> str:
    """The characters model APIs accept; a name in another script (Chinese, say) also gets a
    short digest of itself, so two such servers or tools keep distinct, stable names."""
    slug = _UNSAFE.sub("_", text).strip("_")
    if text.isascii():
        return slug or "x"
    digest = hashlib.sha256(text.encode()).hexdigest()[:6]
    return f"{slug}_{digest}" if slug else f"u{digest}"


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """``server__tool`` made safe, at most 64 characters, and not in ``taken``."""
    base = f"{_slug(server)}__{_slug(tool)}"
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()
    name = base if len(base) <= MAX_NAME else f"{base[: MAX_NAME - 9]}_{digest[:8]}"
    counter = 2
    while name in taken:
        suffix = f"_{counter}"
        name = f"{name[: MAX_NAME - len(suffix)]}{suffix}"
        counter += 1
    return name


def describe(server: str, description: str | None, title: str | None = None) -> str:
    """The description prefixed with the server's name, bounded."""
    text = " ".join((description or title or "").split())
    if len(text) > MAX_DESCRIPTION:
        text = text[: MAX_DESCRIPTION - 1] + "…"
    return f"[{server}] {text}".rstrip()


def model_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The server's input schema, cleaned like the built-in ones; a huge or odd one is
    replaced by an open object (the server still checks the arguments)."""
    if not isinstance(schema, Mapping) or len(repr(schema)) > MAX_SCHEMA_CHARS:
        return {"type": "object", "properties": {}}
    try:
        cleaned = clean_schema(dict(schema))
    except RecursionError:
        return {"type": "object", "properties": {}}
    cleaned.pop("$schema", None)
    if cleaned.get("type") != "object":
        return {"type": "object", "properties": {}}
    return cleaned


def risk_of(annotations: Mapping[str, Any] | None, trust: str) -> tuple[Risk, bool]:
    """The risk a call is treated with, and whether it asks under the ``all_writes`` mode's
    logic even though the server says it only reads.

    readOnlyHint → read, which runs without asking only on a server trusted for it (otherwise
    it asks like a write); destructiveHint (true by default when not read-only) → destructive,
    which always asks; anything else → write.
    """
    facts = annotations or {}
    if facts.get("readOnlyHint") is True:
        return (Risk.READ, False) if trust == "trust_read_only" else (Risk.WRITE, True)
    if facts.get("destructiveHint", True) is not False:
        return Risk.DESTRUCTIVE, False
    return Risk.WRITE, False
