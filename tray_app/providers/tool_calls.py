"""Assemble tool calls that arrive in pieces.

Ollama (SPEC 2.1, design document 8.2): a ``tool_calls`` entry with ``function.name`` starts a
new call; one without a name but with ``arguments`` continues the last call. OpenAI-compatible
servers key fragments by ``index`` instead. Arguments may come as objects (merged key by key)
or as JSON text (concatenated, parsed once the stream ends); a call whose arguments do not
parse keeps its name and gets ``arguments_error``, so the agent can tell the model what went
wrong instead of running it.
"""

from __future__ import annotations

import json
from typing import Any

from tray_app.providers.base import ToolCall


class PendingCall:
    """One call being assembled."""

    def __init__(self, name: str = "", call_id: str | None = None) -> None:
        self.id = call_id
        self.name = name
        self._object: dict[str, Any] = {}
        self._text: list[str] = []
        self._error: str | None = None

    def add_arguments(self, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, dict):
            self._object.update(value)
        elif isinstance(value, str):
            self._text.append(value)
        else:
            self._error = (
                f"The arguments of {self.name or 'the call'} must be a JSON object, "
                f"not {type(value).__name__}."
            )

    def build(self) -> ToolCall:
        arguments = dict(self._object)
        error = self._error
        text = "".join(self._text).strip()
        if text and error is None:
            parsed, error = _parse_object(text, self.name)
            arguments = {**parsed, **arguments}
        if not self.name and error is None:
            error = "The model sent tool arguments without a tool name."
        return ToolCall(id=self.id, name=self.name, arguments=arguments, arguments_error=error)


def _parse_object(text: str, name: str) -> tuple[dict[str, Any], str | None]:
    subject = f"The arguments of {name or 'the call'}"
    try:
        parsed: Any = json.loads(text)
        if isinstance(parsed, str):  # some models encode the object twice
            parsed = json.loads(parsed)
    except json.JSONDecodeError as exc:
        snippet = text if len(text) <= 200 else text[:200] + "…"
        return {}, f"{subject} are not valid JSON ({exc.msg} at character {exc.pos}): {snippet}"
    if not isinstance(parsed, dict):
        return {}, f"{subject} must be a JSON object, not {type(parsed).__name__}."
    return parsed, None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class NamedToolCalls:
    """Ollama's rule: a name starts a call, a nameless fragment continues the last one."""

    def __init__(self) -> None:
        self._calls: list[PendingCall] = []

    def add(self, entries: Any) -> None:
        if not isinstance(entries, list):
            return
        for entry in entries:
            function = entry.get("function") if isinstance(entry, dict) else None
            if not isinstance(function, dict):
                continue
            call_id, name = _text(entry.get("id")), _text(function.get("name"))
            if name or not self._calls:
                self._calls.append(PendingCall(name or "", call_id))
            elif call_id and self._calls[-1].id is None:
                self._calls[-1].id = call_id
            self._calls[-1].add_arguments(function.get("arguments"))

    def build(self) -> list[ToolCall]:
        return [call.build() for call in self._calls]


class IndexedToolCalls:
    """OpenAI's rule: fragments belong to the call with their ``index``.

    A delta without an index (some servers leave it out) starts a new call when it has a name
    and continues the last call otherwise.
    """

    def __init__(self) -> None:
        self._calls: dict[int, PendingCall] = {}

    def add(self, entries: Any) -> None:
        if not isinstance(entries, list):
            return
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            function = entry.get("function")
            function = function if isinstance(function, dict) else {}
            call_id, name = _text(entry.get("id")), _text(function.get("name"))
            index = entry.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                last = max(self._calls, default=-1)
                index = last + 1 if name or last < 0 else last
            call = self._calls.get(index)
            if call is None:
                call = self._calls[index] = PendingCall()
            if name and not call.name:
                call.name = name
            if call_id and call.id is None:
                call.id = call_id
            call.add_arguments(function.get("arguments"))

    def build(self) -> list[ToolCall]:
        return [self._calls[index].build() for index in sorted(self._calls)]
