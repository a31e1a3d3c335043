"""Weak shapes, taken only when they are the whole answer: a bare JSON call or list
(qwen2.5-coder), one fenced ``json`` block holding it (llama3.2), or llama3.2's python-call
list ``[name(a="x")]``."""

from __future__ import annotations

from collections.abc import Collection

from tray_app.providers.text_calls.found import Region
from tray_app.providers.text_calls.values import decode, json_calls, python_calls

_WEAK_FENCE_LANGS = frozenset({"", "json", "tool_call", "tool_calls"})


def whole_answer_calls(text: str, offered: Collection[str]) -> Region | None:
    """A bare JSON call (or list) as the whole answer, or a fenced ``json`` block holding one
    that opens the answer (llama3.2 sometimes says a sentence after it: that stays text)."""
    lead = len(text) - len(text.lstrip())
    body = text.strip()
    end_at = len(text)
    if body.startswith("```"):
        newline = body.find("\n")
        close = body.find("\n```", newline) if newline >= 0 else -1
        if close < 0 or body[3:newline].strip().lower() not in _WEAK_FENCE_LANGS:
            return None
        after = body.find("\n", close + 4)
        fence_end = len(body) if after < 0 else after
        if body[close + 4 : fence_end].strip():
            return None  # the closing line holds more than the fence
        end_at = lead + fence_end
        body = body[newline + 1 : close].strip()
    if not body.startswith(("{", "[")):
        return None
    if body.startswith("[") and body.endswith(")]"):  # llama3.2's python-call list
        python = python_calls(body)
        if python and all(raw.name in offered for raw in python):
            return Region(0, end_at, calls=python)
        return None
    value, end = decode(body, 0)
    if end != len(body):
        return None
    raws = json_calls(value, strict=True)
    if not raws or any(raw.name not in offered for raw in raws):
        return None
    return Region(0, end_at, calls=raws)
