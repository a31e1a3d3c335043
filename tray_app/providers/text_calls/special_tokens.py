"""Calls between a model family's special tokens: llama's ``<|python_tag|>``, Mistral's
``[TOOL_CALLS]``, gpt-oss harmony messages, gemma's ``tool_code`` fence and DeepSeek's
``<｜tool▁call▁begin｜>`` markers."""

from __future__ import annotations

from tray_app.providers.text_calls.found import MAX_CALLS, Raw, Region, region
from tray_app.providers.text_calls.markup import (
    DEEPSEEK,
    HARMONY_CHANNEL,
    HARMONY_ENDS,
    HARMONY_MESSAGE,
    HARMONY_START,
    MISTRAL,
    MISTRAL_ARGS,
    MISTRAL_CALL_ID,
    PYTHON_TAG,
    PYTHON_TAG_ENDS,
    TOOL_CODE_FENCE,
    until,
)
from tray_app.providers.text_calls.values import decode, json_calls, python_calls


def python_tag(text: str, start: int) -> Region:
    body_start = start + len(PYTHON_TAG)
    body_end, end = until(text, body_start, (*PYTHON_TAG_ENDS, PYTHON_TAG))
    if end > body_end and text.startswith(PYTHON_TAG, body_end):
        end = body_end
    body = text[body_start:body_end].strip()
    if not body.startswith(("{", "[")):
        return region(start, end, python_calls(body))
    raws: list[Raw] = []
    position = 0
    while position < len(body) and len(raws) < MAX_CALLS:
        value, after = decode(body, position)
        found = json_calls(value, strict=False)
        if not found:
            return region(start, end, raws or None)
        raws.extend(found)
        position = after
        while position < len(body) and body[position] in " \t\r\n;,":
            position += 1
    return region(start, end, raws)


def mistral(text: str, start: int) -> Region:
    position = start + len(MISTRAL)
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    if text.startswith(("[", "{"), position):
        value, end = decode(text, position)
        if value is None:
            return region(start, len(text), None)
        return region(start, end, json_calls(value, strict=False))
    # The newer form: NAME[ARGS]{…} (or NAME[CALL_ID]id[ARGS]{…}), one per [TOOL_CALLS].
    args_at = text.find(MISTRAL_ARGS, position)
    line_end = text.find("\n", position)
    if args_at < 0 or (0 <= line_end < args_at):
        return region(start, len(text) if line_end < 0 else line_end, None)
    name = text[position:args_at]
    call_id = name.find(MISTRAL_CALL_ID)
    name = (name if call_id < 0 else name[:call_id]).strip()
    value_at = args_at + len(MISTRAL_ARGS)
    value, end = decode(text, value_at)
    if not name or value is None:
        return region(start, max(end, value_at), None)
    return region(start, end, [Raw(name, value)])


def harmony(text: str, start: int) -> Region:
    """One harmony message: header (channel, ``to=`` recipient) up to ``<|message|>``, then
    its body up to ``<|call|>``/``<|end|>``/``<|return|>``, the next message or the end."""
    message_at = text.find(HARMONY_MESSAGE, start)
    if message_at < 0:
        return region(start, len(text), None)
    header = text[start:message_at]
    body_start = message_at + len(HARMONY_MESSAGE)
    body_end, end = until(text, body_start, (*HARMONY_ENDS, HARMONY_START, HARMONY_CHANNEL))
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
        value, _ = decode(body.strip(), 0)
        arguments = value if value is not None else body.strip()
        return region(start, end, [Raw(name, arguments)] if name else None)
    channel = header.split(HARMONY_CHANNEL)[-1].strip().split(" ")[0]
    if channel == "analysis":
        return Region(start, end, thinking=body)
    return Region(start, end, keep=body)  # final, or commentary said to the user


def tool_code(text: str, start: int) -> Region:
    body_start = start + len(TOOL_CODE_FENCE)
    close = text.find("```", body_start)
    end = len(text) if close < 0 else close + 3
    body = text[body_start : len(text) if close < 0 else close].strip()
    return region(start, end, python_calls(body))


def deepseek(text: str, start: int, marker: str) -> Region:
    marks = DEEPSEEK["｜" if "｜" in marker else "|"]
    _, end = until(text, start, (marks["calls_end"],))
    raws: list[Raw] = []
    position = start
    while len(raws) < MAX_CALLS:
        begin = text.find(marks["call_begin"], position, end)
        if begin < 0:
            break
        sep = text.find(marks["sep"], begin, end)
        if sep < 0:
            break
        call_end, after = until(text, sep, (marks["call_end"],))
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
        value, _ = decode(text, brace) if brace >= 0 else (None, 0)
        if name:
            raws.append(Raw(name, value if value is not None else {}))
        position = max(after, begin + 1)
    return region(start, end, raws or None)
