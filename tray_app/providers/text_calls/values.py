"""Reading a call's values: JSON (one value, never recursed past its depth) and python-call
syntax read with ``ast`` (literal values only, nothing evaluated)."""

from __future__ import annotations

import ast
import json
from typing import Any

from tray_app.providers.text_calls.found import MAX_CALLS, Raw

_DECODER = json.JSONDecoder()


def decode(text: str, position: int) -> tuple[Any, int]:
    """The JSON value at ``position`` and where it ends; (None, position) when there is none.
    ``raw_decode`` reads one value and stops; too deep a value is refused, never recursed."""
    try:
        return _DECODER.raw_decode(text, position)
    except (ValueError, RecursionError):
        return None, position


def json_calls(value: Any, *, strict: bool) -> list[Raw] | None:
    """Calls in a JSON value: one call object or a list of them. ``strict`` (a weak shape)
    needs ``arguments`` or ``parameters`` beside the name, so ``{"name": "Alice"}`` is data."""
    items = value if isinstance(value, list) else [value]
    if not items or len(items) > MAX_CALLS:
        return None
    raws: list[Raw] = []
    for item in items:
        raw = json_call(item, strict=strict)
        if raw is None:
            return None
        raws.append(raw)
    return raws


def json_call(item: Any, *, strict: bool) -> Raw | None:
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict):  # the OpenAI shape written out
        item = {**item, **function}
    name = item.get("name")
    if not isinstance(name, str) and isinstance(function, str):
        name = function
    if not isinstance(name, str) or not name.strip():
        return None
    for key in ("arguments", "parameters"):
        if key in item:
            return Raw(name.strip(), item[key])
    return None if strict else Raw(name.strip(), {})


def text_value(raw: str) -> Any:
    """A value written as text: a JSON object or list when it reads as one, else the text
    (a number or ``true`` stays text: the tool's own validation reads it for its type)."""
    value = raw.strip("\n")
    stripped = value.strip()
    if stripped.startswith(("{", "[")):
        parsed, end = decode(stripped, 0)
        if end == len(stripped) and isinstance(parsed, (dict, list)):
            return parsed
    return value


def python_calls(body: str) -> list[Raw] | None:
    """``name(a="x", n=2)`` lines (or a list of them; ``print(…)`` around one is dropped):
    read with ``ast``, every argument a literal, nothing evaluated."""
    if not body:
        return None
    try:
        tree = ast.parse(body, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    raws: list[Raw] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            return None
        nodes = statement.value.elts if isinstance(statement.value, ast.List) else [statement.value]
        for node in nodes:
            raw = python_call(node)
            if raw is None:
                return None
            raws.append(raw)
    return raws[:MAX_CALLS] or None


def python_call(node: ast.expr) -> Raw | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and len(node.args) == 1
        and not node.keywords
    ):
        node = node.args[0]
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "call":
        func = func.value  # llama's "name.call(a=…)"
    if isinstance(func, ast.Name):
        name = func.id
    elif isinstance(func, ast.Attribute):
        name = func.attr
    else:
        return None
    if node.args:
        return Raw(name, error="use named arguments (name=value), not positional ones")
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return Raw(name, error="arguments must be written out, not unpacked with **")
        try:
            arguments[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return Raw(name, error=f"the argument {keyword.arg} must be a literal value")
    return Raw(name, arguments)
