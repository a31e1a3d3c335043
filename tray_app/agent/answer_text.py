"""What one streamed answer's text comes to once the stream has ended.

Models do not always use the fields they were given (``providers.text_calls``): a call left in
the answer's text, or written inside the reasoning, becomes a real call when no structured call
came in that round; an R1 distill's lone leading ``</think>`` makes the text before it
reasoning. ``settle`` decides that once, from the whole texts; the stream's gate
(``providers.text_call_gate``) made sure nothing it may take away was shown.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from tray_app.messages import ToolCall
from tray_app.providers.text_calls import extract_calls
from tray_app.providers.think_tags import CLOSE_TAG, OPEN_TAG


@dataclass(frozen=True)
class Settled:
    """The answer as it is stored and sent back: its texts, its calls, and what was cut."""

    content: str
    thinking: str
    calls: list[ToolCall] = field(default_factory=list)
    #: Marked calls cut from the text but not run (a tool not offered, or unreadable).
    unusable: tuple[str, ...] = ()
    recovered: bool = False  # the calls came from the text


def lone_close_tag(content: str, thinking: str) -> tuple[str, str] | None:
    """(thinking, content) when ``content`` has a ``</think>`` with no ``<think>`` before it
    and nothing else was reasoning: R1 distills start inside the reasoning."""
    if thinking.strip():
        return None
    close = content.find(CLOSE_TAG)
    if close < 0 or OPEN_TAG in content[:close]:
        return None
    return content[:close].strip(), content[close + len(CLOSE_TAG) :].lstrip()


def settle(content: str, thinking: str, calls: list[ToolCall], offered: Collection[str]) -> Settled:
    """The final texts and calls of an answer whose stream ended normally."""
    split = lone_close_tag(content, thinking)
    if split is not None:
        thinking, content = split
    if calls or not offered:
        return Settled(content, thinking, calls)
    found = extract_calls(content, offered)
    if found.calls:
        merged = _merged(thinking, found.thinking)
        return Settled(found.text, merged, found.calls, found.unusable, recovered=True)
    in_thinking = extract_calls(thinking, offered)
    if in_thinking.calls:  # the reasoning is kept as it was: it is not the answer
        text = found.text if found.changed else content
        return Settled(text, thinking, in_thinking.calls, found.unusable, recovered=True)
    if found.changed:
        return Settled(found.text, _merged(thinking, found.thinking), [], found.unusable)
    return Settled(content, thinking, [])


def _merged(thinking: str, more: str) -> str:
    """The reasoning, with what the markup carried (harmony's analysis channel) after it."""
    if not more:
        return thinking
    return f"{thinking.rstrip()}\n\n{more}" if thinking.strip() else more
