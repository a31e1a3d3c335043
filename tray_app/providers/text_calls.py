"""Tool calls a model left in its answer's text, recovered as real calls.

Local models often write a call into the answer instead of the structured field: the server's
parser missed it, or its template never had one. Recognised shapes (each test case cites the
public report it comes from, ``tests/fakes/model_shapes.py``):

- ``<tool_call>{"name": …, "arguments": …}</tool_call>`` (qwen2.5, hermes), with a Qwen3-Coder
  ``<function=NAME><parameter=KEY>value</parameter></function>`` body or a GLM
  ``NAME<arg_key>k</arg_key><arg_value>v</arg_value>`` body;
- ``<function=NAME>{…}</function>`` and ``<function=NAME><parameter=…>`` outside a tag;
- ``<|python_tag|>{…}`` (llama3.1; ``;`` between calls, or python-call syntax);
- ``[TOOL_CALLS][{…}]`` (mistral-nemo) and ``[TOOL_CALLS]NAME[ARGS]{…}`` (newer Mistral);
- gpt-oss harmony: ``<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}
  <|call|>``; its ``analysis`` channel becomes reasoning and ``final`` the answer;
- DeepSeek's ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` + a
  ``json`` fence (or bare JSON) + ``<｜tool▁call▁end｜>`` markers (either bar character);
- gemma's fenced ``tool_code`` block: python-call syntax ``name(a="x")`` read with ``ast``,
  literal values only, nothing evaluated;
- weak shapes, taken only when they are the whole answer and name an offered tool: a bare JSON
  object or list ``{"name": …, "arguments"|"parameters": …}`` (qwen2.5-coder), one fenced
  ``json`` block holding it (llama3.2), or llama3.2's python-call list ``[name(a="x")]``.

Only calls that name a tool offered in this request come back as calls; their arguments go
through ``tool_calls.PendingCall`` (the same repair and bounds as a native call). A marked call
to any other tool, or one that cannot be read, is cut from the text and reported in
``unusable`` so the user can be told, instead of being shown raw markup.

Bounded and linear: every scan moves forward with ``str.find`` or ``JSONDecoder.raw_decode``;
at most ``MAX_CALLS`` calls; text longer than ``MAX_SCAN_CHARS`` is not scanned at all.
``TextCallGate`` is the streaming side: it holds back answer text that may be a call until it
is decided, so a call is never shown as text and then taken away.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from tray_app.messages import ToolCall
from tray_app.providers.tool_calls import PendingCall

MAX_SCAN_CHARS = 600_000  # more than the largest arguments a call may carry (256 KB) + text
MAX_CALLS = 32

TOOL_CALL_OPEN, TOOL_CALL_CLOSE = "<tool_call>", "</tool_call>"
FUNCTION_OPEN, FUNCTION_CLOSE = "<function=", "</function>"
PARAMETER_OPEN, PARAMETER_CLOSE = "<parameter=", "</parameter>"
ARG_KEY_OPEN, ARG_KEY_CLOSE = "<arg_key>", "</arg_key>"
ARG_VALUE_OPEN, ARG_VALUE_CLOSE = "<arg_value>", "</arg_value>"
PYTHON_TAG = "<|python_tag|>"
PYTHON_TAG_ENDS = ("<|eom_id|>", "<|eot_id|>")
MISTRAL = "[TOOL_CALLS]"
MISTRAL_ARGS, MISTRAL_CALL_ID = "[ARGS]", "[CALL_ID]"
HARMONY_CHANNEL, HARMONY_START = "<|channel|>", "<|start|>"
HARMONY_MESSAGE = "<|message|>"
HARMONY_ENDS = ("<|call|>", "<|end|>", "<|return|>")
TOOL_CODE_FENCE = "```tool_code"
#: DeepSeek's markers, with the full-width bar it documents and the ASCII one servers print.
DEEPSEEK = {
    bar: {
        "calls_begin": f"<{bar}tool▁calls▁begin{bar}>",
        "calls_end": f"<{bar}tool▁calls▁end{bar}>",
        "call_begin": f"<{bar}tool▁call▁begin{bar}>",
        "call_end": f"<{bar}tool▁call▁end{bar}>",
        "sep": f"<{bar}tool▁sep{bar}>",
    }
    for bar in ("｜", "|")
}
_DEEPSEEK_OPENERS = tuple(
    marks[key] for marks in DEEPSEEK.values() for key in ("calls_begin", "call_begin")
)
#: What starts marked call text anywhere in an answer (the streaming gate holds from here).
MARKERS: tuple[str, ...] = (
    TOOL_CALL_OPEN,
    FUNCTION_OPEN,
    PYTHON_TAG,
    MISTRAL,
    HARMONY_CHANNEL,
    HARMONY_START,
    TOOL_CODE_FENCE,
    *_DEEPSEEK_OPENERS,
)
_WEAK_FENCE_LANGS = frozenset({"", "json", "tool_call", "tool_calls"})
_DECODER = json.JSONDecoder()
_FENCE_INDENT = 16  # spaces a fence line may start with (looking further back is not linear)


@dataclass(frozen=True)
class TextCalls:
    """What ``extract_calls`` found.

    ``calls``: the recovered calls, in order. ``text``: the answer without their markup.
    ``thinking``: reasoning the markup carried (harmony's ``analysis`` channel). ``unusable``:
    marked calls that were cut but not kept, by tool name (``""`` when none could be read).
    """

    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    thinking: str = ""
    unusable: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether anything was found: when False, ``text`` is the input unchanged."""
        return bool(self.calls or self.unusable or self.thinking)


@dataclass
class _Raw:
    """One call as written: its name and its arguments (object, JSON text, or None)."""

    name: str
    arguments: Any = None
    error: str | None = None


@dataclass
class _Region:
    """A stretch of the text that is markup: cut out, replaced by ``keep`` (harmony's final)."""

    start: int
    end: int
    calls: list[_Raw] = field(default_factory=list)
    thinking: str = ""
    keep: str = ""
    unreadable: bool = False


def extract_calls(text: str, offered: Collection[str]) -> TextCalls:
    """The calls in ``text`` that name a tool in ``offered``, and the text without them."""
    if not offered or not text or len(text) > MAX_SCAN_CHARS:
        return TextCalls(text=text)
    whole = _whole_answer_calls(text, offered)
    if whole is not None:
        return _result(text, [whole], offered)
    regions = _marked_regions(text)
    if not regions:
        return TextCalls(text=text)
    return _result(text, regions, offered)


def offered_names(tools: list[dict[str, Any]] | None) -> frozenset[str]:
    """The tool names of a request's ``tools`` (OpenAI function shape)."""
    names: set[str] = set()
    for tool in tools or ():
        function = tool.get("function") if isinstance(tool, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str) and name:
            names.add(name)
    return frozenset(names)


# ---- assembling the result ------------------------------------------------------------------


def _result(text: str, regions: list[_Region], offered: Collection[str]) -> TextCalls:
    calls: list[ToolCall] = []
    unusable: list[str] = []
    thinking: list[str] = []
    kept: list[str] = []
    position = 0
    for region in regions:
        if _prose(text, region, offered):
            continue
        kept.append(text[position : region.start])
        kept.append(region.keep)
        position = region.end
        if region.thinking:
            thinking.append(region.thinking)
        if region.unreadable:
            unusable.append("")
        for raw in region.calls:
            if raw.name not in offered or len(calls) >= MAX_CALLS:
                unusable.append(raw.name)
                continue
            calls.append(_built(raw))
    kept.append(text[position:])
    rest = "".join(kept)
    return TextCalls(
        calls=calls,
        text=_tidy(rest),
        thinking="\n\n".join(part.strip() for part in thinking if part.strip()),
        unusable=tuple(unusable),
    )


def _prose(text: str, region: _Region, offered: Collection[str]) -> bool:
    """Markup that runs no call and stands inside a line ("qwen marks a call with <tool_call>
    tags") is the answer talking about markup: it stays text. Only where such markup starts
    a line (or the answer) is it cut and reported."""
    if region.thinking or region.keep or any(raw.name in offered for raw in region.calls):
        return False
    line_start = text.rfind("\n", 0, region.start) + 1
    return bool(text[line_start : region.start].strip())


def _tidy(text: str) -> str:
    """Whitespace left where markup was cut: outer blank space and runs of blank lines."""
    lines = text.strip().split("\n")
    out: list[str] = []
    blank = 0
    for line in lines:
        blank = blank + 1 if not line.strip() else 0
        if blank <= 1:
            out.append(line.rstrip() if not line.strip() else line)
    return "\n".join(out)


def _built(raw: _Raw) -> ToolCall:
    if raw.error is not None:
        return ToolCall(name=raw.name, arguments={}, arguments_error=raw.error)
    pending = PendingCall(raw.name)
    pending.add_arguments({} if raw.arguments is None else raw.arguments)
    return pending.build()


# ---- weak shapes: the whole answer is the call ----------------------------------------------


def _whole_answer_calls(text: str, offered: Collection[str]) -> _Region | None:
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
        python = _python_calls(body)
        if python and all(raw.name in offered for raw in python):
            return _Region(0, end_at, calls=python)
        return None
    value, end = _decode(body, 0)
    if end != len(body):
        return None
    raws = _json_calls(value, strict=True)
    if not raws or any(raw.name not in offered for raw in raws):
        return None
    return _Region(0, end_at, calls=raws)


# ---- marked shapes --------------------------------------------------------------------------


def _marked_regions(text: str) -> list[_Region]:
    """Every marked call in ``text``, left to right (markers inside code fences are text)."""
    regions: list[_Region] = []
    finder = _MarkerFinder(text)
    fences = _FenceTracker(text)
    position = 0
    calls = 0
    while calls < MAX_CALLS:
        found = finder.next(position)
        if found is None:
            break
        start, marker = found
        if (start and text[start - 1] == "`") or (
            marker != TOOL_CODE_FENCE and fences.inside(start)
        ):
            position = start + len(marker)
            continue
        region = _parse_at(text, start, marker)
        if region is None:
            position = start + len(marker)
            continue
        regions.append(region)
        calls += max(1, len(region.calls))
        position = max(region.end, start + len(marker))
    return regions


class _MarkerFinder:
    """The next marker at or after a position; each marker's next hit is cached, so the whole
    text is searched at most once per marker however many times ``next`` is asked."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._hits: dict[str, int] = {}

    def next(self, position: int) -> tuple[int, str] | None:
        best: tuple[int, str] | None = None
        for marker in MARKERS:
            hit = self._hits.get(marker, -2)
            if hit != -1 and hit < position:
                hit = self._text.find(marker, position)
                self._hits[marker] = hit
            if hit >= 0 and (best is None or hit < best[0]):
                best = (hit, marker)
        return best


class _FenceTracker:
    """Whether a position is inside a fenced code block (lines that start with three
    backticks open and close one); asked in increasing positions, so one pass in all."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._scanned = 0
        self._open = False

    def inside(self, position: int) -> bool:
        text = self._text
        while True:
            fence = text.find("```", self._scanned, position)
            if fence < 0:
                self._scanned = max(self._scanned, position)
                return self._open
            window = max(0, fence - _FENCE_INDENT)
            line_start = text.rfind("\n", window, fence) + 1
            if (line_start or not window) and not text[line_start:fence].strip():
                self._open = not self._open
            self._scanned = fence + 3


def _parse_at(text: str, start: int, marker: str) -> _Region | None:
    if marker == TOOL_CALL_OPEN:
        return _tool_call_tag(text, start)
    if marker == FUNCTION_OPEN:
        return _function_tag(text, start)
    if marker == PYTHON_TAG:
        return _python_tag(text, start)
    if marker == MISTRAL:
        return _mistral(text, start)
    if marker in (HARMONY_CHANNEL, HARMONY_START):
        return _harmony(text, start)
    if marker == TOOL_CODE_FENCE:
        return _tool_code(text, start)
    return _deepseek(text, start, marker)


def _until(text: str, start: int, ends: tuple[str, ...]) -> tuple[int, int]:
    """(where the first of ``ends`` after ``start`` begins, where it ends); the text's end
    twice when none follows (a call cut by the end of the answer)."""
    best = -1
    size = 0
    for end in ends:
        hit = text.find(end, start)
        if hit >= 0 and (best < 0 or hit < best):
            best, size = hit, len(end)
    return (len(text), len(text)) if best < 0 else (best, best + size)


def _tool_call_tag(text: str, start: int) -> _Region:
    body_start = start + len(TOOL_CALL_OPEN)
    body_end, end = _until(text, body_start, (TOOL_CALL_CLOSE, TOOL_CALL_OPEN))
    if end > body_end and text.startswith(TOOL_CALL_OPEN, body_end):
        end = body_end  # the next call starts without this one being closed
    body = text[body_start:body_end].strip()
    if body.startswith(("{", "[")):
        value, _ = _decode(body, 0)
        raws = _json_calls(value, strict=False)
    elif body.startswith(FUNCTION_OPEN):
        raws = _function_body(body)
    else:
        raws = _glm_body(body)
    return _region(start, end, raws)


def _function_tag(text: str, start: int) -> _Region:
    body_end, end = _until(text, start, (FUNCTION_CLOSE,))
    raws = _function_body(text[start:body_end])
    return _region(start, end, raws)


def _function_body(body: str) -> list[_Raw] | None:
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
        value, _ = _decode(inner, 0)
        return [_Raw(name, value if value is not None else inner)]
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
        arguments[key] = _text_value(inner[key_end + 1 : value_end])
        position = value_end
    return [_Raw(name, arguments)]


def _glm_body(body: str) -> list[_Raw] | None:
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
        arguments[key] = _text_value(body[value_at + len(ARG_VALUE_OPEN) : value_end])
        position = value_end
    return [_Raw(name, arguments)]


def _text_value(raw: str) -> Any:
    """A value written as text: a JSON object or list when it reads as one, else the text
    (a number or ``true`` stays text: the tool's own validation reads it for its type)."""
    value = raw.strip("\n")
    stripped = value.strip()
    if stripped.startswith(("{", "[")):
        parsed, end = _decode(stripped, 0)
        if end == len(stripped) and isinstance(parsed, (dict, list)):
            return parsed
    return value


def _python_tag(text: str, start: int) -> _Region:
    body_start = start + len(PYTHON_TAG)
    body_end, end = _until(text, body_start, (*PYTHON_TAG_ENDS, PYTHON_TAG))
    if end > body_end and text.startswith(PYTHON_TAG, body_end):
        end = body_end
    body = text[body_start:body_end].strip()
    if not body.startswith(("{", "[")):
        return _region(start, end, _python_calls(body))
    raws: list[_Raw] = []
    position = 0
    while position < len(body) and len(raws) < MAX_CALLS:
        value, after = _decode(body, position)
        found = _json_calls(value, strict=False)
        if not found:
            return _region(start, end, raws or None)
        raws.extend(found)
        position = after
        while position < len(body) and body[position] in " \t\r\n;,":
            position += 1
    return _region(start, end, raws)


def _mistral(text: str, start: int) -> _Region:
    position = start + len(MISTRAL)
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    if text.startswith(("[", "{"), position):
        value, end = _decode(text, position)
        if value is None:
            return _region(start, len(text), None)
        return _region(start, end, _json_calls(value, strict=False))
    # The newer form: NAME[ARGS]{…} (or NAME[CALL_ID]id[ARGS]{…}), one per [TOOL_CALLS].
    args_at = text.find(MISTRAL_ARGS, position)
    line_end = text.find("\n", position)
    if args_at < 0 or (0 <= line_end < args_at):
        return _region(start, len(text) if line_end < 0 else line_end, None)
    name = text[position:args_at]
    call_id = name.find(MISTRAL_CALL_ID)
    name = (name if call_id < 0 else name[:call_id]).strip()
    value_at = args_at + len(MISTRAL_ARGS)
    value, end = _decode(text, value_at)
    if not name or value is None:
        return _region(start, max(end, value_at), None)
    return _region(start, end, [_Raw(name, value)])


def _harmony(text: str, start: int) -> _Region:
    """One harmony message: header (channel, ``to=`` recipient) up to ``<|message|>``, then
    its body up to ``<|call|>``/``<|end|>``/``<|return|>``, the next message or the end."""
    message_at = text.find(HARMONY_MESSAGE, start)
    if message_at < 0:
        return _region(start, len(text), None)
    header = text[start:message_at]
    body_start = message_at + len(HARMONY_MESSAGE)
    body_end, end = _until(text, body_start, (*HARMONY_ENDS, HARMONY_START, HARMONY_CHANNEL))
    if end > body_end and text.startswith((HARMONY_START, HARMONY_CHANNEL), body_end):
        end = body_end
    body = text[body_start:body_end]
    recipient = header.find("to=")
    if recipient >= 0:
        name_start = recipient + 3
        name_end = name_start
        while name_end < len(header) and header[name_end] not in " \t\n<":
            name_end += 1
        name = header[name_start:name_end].removeprefix("functions.")
        value, _ = _decode(body.strip(), 0)
        arguments = value if value is not None else body.strip()
        return _region(start, end, [_Raw(name, arguments)] if name else None)
    channel = header.split(HARMONY_CHANNEL)[-1].strip().split(" ")[0]
    if channel == "analysis":
        return _Region(start, end, thinking=body)
    return _Region(start, end, keep=body)  # final, or commentary said to the user


def _tool_code(text: str, start: int) -> _Region:
    body_start = start + len(TOOL_CODE_FENCE)
    close = text.find("```", body_start)
    end = len(text) if close < 0 else close + 3
    body = text[body_start : len(text) if close < 0 else close].strip()
    return _region(start, end, _python_calls(body))


def _deepseek(text: str, start: int, marker: str) -> _Region:
    marks = DEEPSEEK["｜" if "｜" in marker else "|"]
    _, end = _until(text, start, (marks["calls_end"],))
    raws: list[_Raw] = []
    position = start
    while len(raws) < MAX_CALLS:
        begin = text.find(marks["call_begin"], position, end)
        if begin < 0:
            break
        sep = text.find(marks["sep"], begin, end)
        if sep < 0:
            break
        call_end, after = _until(text, sep, (marks["call_end"],))
        call_end, after = min(call_end, end), min(after, end)
        after_sep = sep + len(marks["sep"])
        # V3: "function<sep>NAME\n```json\n{…}\n```"; V3.1: "NAME<sep>{…}".
        before = text[begin + len(marks["call_begin"]) : sep].strip()
        name_end = after_sep
        while name_end < call_end and text[name_end] not in "\n{`":
            name_end += 1
        name = text[after_sep:name_end].strip()
        if before and before != "function":
            name, name_end = before, after_sep
        brace = text.find("{", name_end, call_end)
        value, _ = _decode(text, brace) if brace >= 0 else (None, 0)
        if name:
            raws.append(_Raw(name, value if value is not None else {}))
        position = max(after, begin + 1)
    return _region(start, end, raws or None)


def _region(start: int, end: int, raws: list[_Raw] | None) -> _Region:
    if not raws:
        return _Region(start, end, unreadable=True)
    return _Region(start, end, calls=raws)


# ---- reading values -------------------------------------------------------------------------


def _decode(text: str, position: int) -> tuple[Any, int]:
    """The JSON value at ``position`` and where it ends; (None, position) when there is none.
    ``raw_decode`` reads one value and stops; too deep a value is refused, never recursed."""
    try:
        return _DECODER.raw_decode(text, position)
    except (ValueError, RecursionError):
        return None, position


def _json_calls(value: Any, *, strict: bool) -> list[_Raw] | None:
    """Calls in a JSON value: one call object or a list of them. ``strict`` (a weak shape)
    needs ``arguments`` or ``parameters`` beside the name, so ``{"name": "Alice"}`` is data."""
    items = value if isinstance(value, list) else [value]
    if not items or len(items) > MAX_CALLS:
        return None
    raws: list[_Raw] = []
    for item in items:
        raw = _json_call(item, strict=strict)
        if raw is None:
            return None
        raws.append(raw)
    return raws


def _json_call(item: Any, *, strict: bool) -> _Raw | None:
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
            return _Raw(name.strip(), item[key])
    return None if strict else _Raw(name.strip(), {})


def _python_calls(body: str) -> list[_Raw] | None:
    """``name(a="x", n=2)`` lines (or a list of them; ``print(…)`` around one is dropped):
    read with ``ast``, every argument a literal, nothing evaluated."""
    if not body:
        return None
    try:
        tree = ast.parse(body, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    raws: list[_Raw] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            return None
        nodes = statement.value.elts if isinstance(statement.value, ast.List) else [statement.value]
        for node in nodes:
            raw = _python_call(node)
            if raw is None:
                return None
            raws.append(raw)
    return raws[:MAX_CALLS] or None


def _python_call(node: ast.expr) -> _Raw | None:
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
        return _Raw(name, error="use named arguments (name=value), not positional ones")
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return _Raw(name, error="arguments must be written out, not unpacked with **")
        try:
            arguments[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return _Raw(name, error=f"the argument {keyword.arg} must be a literal value")
    return _Raw(name, arguments)
