"""Calls in XML-like tags: hermes/qwen ``<tool_call>`` (a JSON, Qwen3-Coder ``<parameter=>``
or GLM ``<arg_key>``/``<arg_value>`` body) and ``<function=NAME>`` outside one."""

from __future__ import annotations

from typing import Any

from tray_app.providers.text_calls.found import Raw, Region, region
from tray_app.providers.text_calls.markup import (
    ARG_KEY_CLOSE,
    ARG_KEY_OPEN,
    ARG_VALUE_CLOSE,
    ARG_VALUE_OPEN,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    until,
)
from tray_app.providers.text_calls.values import decode, json_calls, text_value


def tool_call_tag(text: str, start: int) -> Region:
    body_start = start + len(TOOL_CALL_OPEN)
    body_end, end = until(text, body_start, (TOOL_CALL_CLOSE, TOOL_CALL_OPEN))
    if end > body_end and text.startswith(TOOL_CALL_OPEN, body_end):
        end = body_end  # the next call starts without this one being closed
    body = text[body_start:body_end].strip()
    if body.startswith(("{", "[")):
        value, _ = decode(body, 0)
        raws = json_calls(value, strict=False)
    elif body.startswith(FUNCTION_OPEN):
        raws = _function_body(body)
    else:
        raws = _glm_body(body)
    return region(start, end, raws)


def function_tag(text: str, start: int) -> Region:
    body_end, end = until(text, start, (FUNCTION_CLOSE,))
    raws = _function_body(text[start:body_end])
    return region(start, end, raws)


def _function_body(body: str) -> list[Raw] | None:
    """``<function=NAME>`` then a JSON object or ``<parameter=KEY>value</parameter>`` pairs."""
    close = body.find(">")
    if not body.startswith(FUNCTION_OPEN) or close < 0:
        return None
    name = body[len(FUNCTION_OPEN) : close].strip().strip("\"'")
    inner = body[close + 1 :]
    cut = inner.find(FUNCTION_CLOSE)
    inner = (inner if cut < 0 else inner[:cut]).strip()
    if not name:
        return None
    if inner.startswith("{"):
        value, _ = decode(inner, 0)
        return [Raw(name, value if value is not None else inner)]
    arguments: dict[str, Any] = {}
    position = 0
    while (open_at := inner.find(PARAMETER_OPEN, position)) >= 0:
        key_end = inner.find(">", open_at)
        if key_end < 0:
            break
        key = inner[open_at + len(PARAMETER_OPEN) : key_end].strip().strip("\"'")
        value_end = inner.find(PARAMETER_CLOSE, key_end)
        following = inner.find(PARAMETER_OPEN, key_end)
        if value_end < 0 or (0 <= following < value_end):
            value_end = following if following >= 0 else len(inner)
        arguments[key] = text_value(inner[key_end + 1 : value_end])
        position = value_end
    return [Raw(name, arguments)]


def _glm_body(body: str) -> list[Raw] | None:
    """GLM: ``NAME`` then ``<arg_key>k</arg_key><arg_value>v</arg_value>`` pairs (or none)."""
    first = body.find(ARG_KEY_OPEN)
    name = (body if first < 0 else body[:first]).strip()
    if not name or any(char in name for char in "<>{}\n ") or len(name) > 200:
        return None
    arguments: dict[str, Any] = {}
    position = max(first, 0)
    while first >= 0 and (key_at := body.find(ARG_KEY_OPEN, position)) >= 0:
        key_end = body.find(ARG_KEY_CLOSE, key_at)
        value_at = body.find(ARG_VALUE_OPEN, key_end) if key_end >= 0 else -1
        if value_at < 0:
            break
        value_end = body.find(ARG_VALUE_CLOSE, value_at)
        value_end = len(body) if value_end < 0 else value_end
        key = body[key_at + len(ARG_KEY_OPEN) : key_end].strip()
        arguments[key] = text_value(body[value_at + len(ARG_VALUE_OPEN) : value_end])
        position = value_end
    return [Raw(name, arguments)]
