"""The one entry point: the calls in an answer's text that name an offered tool, and the
text without their markup."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from tray_app.base.messages import ToolCall
from tray_app.providers.text_calls.found import MAX_CALLS, Raw, Region, TextCalls
from tray_app.providers.text_calls.markup import MAX_SCAN_CHARS
from tray_app.providers.text_calls.scan import marked_regions
from tray_app.providers.text_calls.whole_answer import whole_answer_calls
from tray_app.providers.tool_calls import PendingCall


def extract_calls(text: str, offered: Collection[str]) -> TextCalls:
    """The calls in ``text`` that name a tool in ``offered``, and the text without them."""
    if not offered or not text or len(text) > MAX_SCAN_CHARS:
        return TextCalls(text=text)
    whole = whole_answer_calls(text, offered)
    if whole is not None:
        return _result(text, [whole], offered)
    regions = marked_regions(text)
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


def _result(text: str, regions: list[Region], offered: Collection[str]) -> TextCalls:
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


def _prose(text: str, region: Region, offered: Collection[str]) -> bool:
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


def _built(raw: Raw) -> ToolCall:
    if raw.error is not None:
        return ToolCall(name=raw.name, arguments={}, arguments_error=raw.error)
    pending = PendingCall(raw.name)
    pending.add_arguments({} if raw.arguments is None else raw.arguments)
    return pending.build()
