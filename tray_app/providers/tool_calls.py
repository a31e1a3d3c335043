"""Assemble tool calls that arrive in pieces, and bound what a call may carry.

Ollama (the Ollama wire rules): a ``tool_calls`` entry with ``function.name`` starts a
new call; one without a name but with ``arguments`` continues the last call. OpenAI-compatible
servers key fragments by ``index`` instead. Arguments may come as objects (merged key by key)
or as JSON text (concatenated, parsed once the stream ends); a call whose arguments do not
parse keeps its name and gets ``arguments_error``, so the agent can tell the model what went
wrong instead of running it.

Arguments larger than ``MAX_ARGUMENT_BYTES`` or nested deeper than ``MAX_ARGUMENT_DEPTH`` are
refused here, before anything stores, shows or re-sends them: the call keeps a small placeholder
(with the size) and an ``arguments_error`` sentence for the model. Past 64 levels pydantic's
serialiser, the C JSON codec and every consumer's recursion start to fail; past 256 KB one call
would be stored, sent to the page and re-sent to the model in every later request.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tray_app.base.messages import ToolCall

MAX_ARGUMENT_DEPTH = 64
MAX_ARGUMENT_BYTES = 256 * 1024
TOO_DEEP = "nested too deeply"
TOO_LARGE = "too large"
_SURROGATE = re.compile("[\ud800-\udfff]")  # left alone in a str only when unpaired
# A string (an unterminated one runs to the end, so the scan stays linear) or a bracket.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def too_deep_error() -> str:
    """For the model (the call handler puts "invalid arguments for NAME: " before it)."""
    return (
        f"arguments nested too deeply (more than {MAX_ARGUMENT_DEPTH} levels); "
        "send flatter arguments"
    )


def too_large_error(size: int) -> str:
    return (
        f"arguments too large ({size:,} bytes; the limit is {MAX_ARGUMENT_BYTES:,}), so they "
        "were not kept; split the work into smaller calls"
    )


def placeholder(reason: str, size: int | None = None) -> dict[str, Any]:
    """What a refused call keeps of its arguments (stored, shown and re-sent instead)."""
    held: dict[str, Any] = {"_refused": reason}
    if size is not None:
        held["_bytes"] = size
    return held


def deeper_than(value: Any, limit: int = MAX_ARGUMENT_DEPTH) -> bool:
    """True when dicts/lists nest more than ``limit`` levels; iterative, so any depth is safe."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def text_deeper_than(text: str, limit: int = MAX_ARGUMENT_DEPTH) -> bool:
    """The same check on JSON text before it is parsed (strings are skipped, so ``"[[["`` is 0)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        piece = match.group()
        if piece[0] == '"':
            continue
        if piece in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON; call only on values within the depth limit."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return len(text.encode("utf-8", "surrogatepass"))


def storable(text: str) -> str:
    """``text`` with lone surrogates as U+FFFD: JSON may carry ``"\\ud800"``, but UTF-8, SQLite
    and pydantic's serialiser refuse it (the turn crashed where the answer was saved)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def bound_call(call: ToolCall) -> ToolCall:
    """``call``, or a refused copy when its arguments are too deep or too large; lone
    surrogates anywhere in it become U+FFFD.

    The loop applies this to every call it receives, whatever the provider did before.
    """
    texts = {
        "name": storable(call.name),
        "id": None if call.id is None else storable(call.id),
        "arguments_error": None if call.arguments_error is None else storable(call.arguments_error),
    }
    if any(getattr(call, key) != value for key, value in texts.items()):
        call = call.model_copy(update=texts)
    if call.arguments_error and call.arguments.keys() <= {"_refused", "_bytes"}:
        return call
    if deeper_than(call.arguments):
        return call.model_copy(
            update={
                "arguments": placeholder(TOO_DEEP),
                "arguments_error": too_deep_error(),
            }
        )
    text = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"), default=str)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_ARGUMENT_BYTES:
        return call.model_copy(
            update={
                "arguments": placeholder(TOO_LARGE, size),
                "arguments_error": too_large_error(size),
            }
        )
    if _SURROGATE.search(text):
        return call.model_copy(update={"arguments": json.loads(storable(text))})
    return call


class PendingCall:
    """One call being assembled; stops keeping arguments once they pass the limits."""

    def __init__(self, name: str = "", call_id: str | None = None) -> None:
        self.id = call_id
        self.name = name
        self._object: dict[str, Any] = {}
        self._text: list[str] = []
        self._error: str | None = None
        self._size = 0  # bytes of argument text/objects received so far
        self._refused: str | None = None  # "too large" / "nested too deeply"

    def add_arguments(self, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, dict):
            if self._refused != TOO_DEEP and deeper_than(value):
                self._refuse(TOO_DEEP)
            if self._refused != TOO_DEEP:  # the exact size, also once refused as too large
                self._size += json_size(value)
            if self._refused is None:
                self._object.update(value)
        elif isinstance(value, str):
            self._size += len(value.encode("utf-8", "surrogatepass"))
            if self._refused is None:
                self._text.append(value)
        else:
            self._error = (
                f"The arguments of {self.name or 'the call'} must be a JSON object, "
                f"not {type(value).__name__}."
            )
        if self._refused is None and self._size > MAX_ARGUMENT_BYTES:
            self._refuse(TOO_LARGE)

    def _refuse(self, reason: str) -> None:
        self._refused = reason
        self._object, self._text = {}, []  # let the memory go now, not at the end

    def build(self) -> ToolCall:
        return bound_call(self._build())

    def _build(self) -> ToolCall:
        if self._refused == TOO_LARGE:
            return ToolCall(
                id=self.id,
                name=self.name,
                arguments=placeholder(TOO_LARGE, self._size),
                arguments_error=too_large_error(self._size),
            )
        if self._refused is not None:
            return ToolCall(
                id=self.id,
                name=self.name,
                arguments=placeholder(TOO_DEEP),
                arguments_error=too_deep_error(),
            )
        arguments = dict(self._object)
        error = self._error
        text = "".join(self._text).strip()
        if text and error is None:
            parsed, error = _parse_object(text, self.name)
            if error is not None and parsed:  # refused with a placeholder
                return ToolCall(id=self.id, name=self.name, arguments=parsed, arguments_error=error)
            arguments = {**parsed, **arguments}
        if not self.name and error is None:
            error = "The model sent tool arguments without a tool name."
        return ToolCall(id=self.id, name=self.name, arguments=arguments, arguments_error=error)


def _parse_object(text: str, name: str) -> tuple[dict[str, Any], str | None]:
    subject = f"The arguments of {name or 'the call'}"
    try:
        parsed: Any = _loads(text)
        if isinstance(parsed, str):  # some models encode the object twice
            parsed = _loads(parsed)
    except _TooDeep:
        return placeholder(TOO_DEEP), too_deep_error()
    except json.JSONDecodeError as exc:
        snippet = text if len(text) <= 200 else text[:200] + "…"
        return {}, f"{subject} are not valid JSON ({exc.msg} at character {exc.pos}): {snippet}"
    if not isinstance(parsed, dict):
        return {}, f"{subject} must be a JSON object, not {type(parsed).__name__}."
    return parsed, None


class _TooDeep(Exception):
    pass


def _loads(text: str) -> Any:
    """``json.loads`` that refuses (instead of recursing) past the depth limit."""
    if text_deeper_than(text):
        raise _TooDeep
    try:
        return json.loads(text)
    except RecursionError as exc:  # a very small stack; the scan above should have caught it
        raise _TooDeep from exc


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
    and continues the last call otherwise. An id that differs from the one already at an index
    starts a new call there: Ollama's ``/v1`` and some gateways stream every parallel call with
    ``index: 0`` (ollama/ollama#15457, ai-dynamo/dynamo#4723), and merging them lost both. A
    name or id repeated in every fragment of one call (vLLM) still continues it.
    """

    def __init__(self) -> None:
        self._calls: list[tuple[int, PendingCall]] = []  # in arrival order
        self._open: dict[int, PendingCall] = {}  # index -> the call its fragments go to now

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
                last = max(self._open, default=-1)
                index = last + 1 if name or last < 0 else last
            call = self._open.get(index)
            if call is None or (call_id and call.id is not None and call_id != call.id):
                call = self._open[index] = PendingCall()
                self._calls.append((index, call))
            if name and not call.name:
                call.name = name
            if call_id and call.id is None:
                call.id = call_id
            call.add_arguments(function.get("arguments"))

    def build(self) -> list[ToolCall]:
        ordered = sorted(range(len(self._calls)), key=lambda n: (self._calls[n][0], n))
        return [self._calls[n][1].build() for n in ordered]
