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

from tray_app.base.messages import ToolCall
from tray_app.providers.text_calls import extract_calls
from tray_app.providers.think_tags import CLOSE_TAG


@dataclass(frozen=True)
class Settled:
    """The answer as it is stored and sent back: its texts, its calls, and what was cut."""

    content: str
    thinking: str
    calls: list[ToolCall] = field(default_factory=list)
    #: Marked calls cut from the text but not run (a tool not offered, or unreadable).
    unusable: tuple[str, ...] = ()
    recovered: bool = False  # the calls came from the text


class LoneCloseTag:
    """Takes an R1 distill's lone ``</think>`` out of the streamed answer and remembers where
    it was: those models start inside the reasoning (their template opened the tag), so the
    text before it is reasoning, which ``settle`` moves there. Only the first one counts, and
    only while nothing else was reasoning; a tag cut between pieces is held like
    ``think_tags`` holds one."""

    def __init__(self) -> None:
        self.at: int | None = None  # where the answer's reasoning ends, in the shown text
        self._passed = 0
        self._held = ""

    def feed(self, text: str, *, reasoning_seen: bool) -> str:
        if self.at is not None or (reasoning_seen and not self._held):
            return text
        text, self._held = self._held + text, ""
        if "<" not in text:
            self._passed += len(text)
            return text
        index = text.find(CLOSE_TAG)
        if index >= 0:
            self.at = self._passed + index
            return text[:index] + text[index + len(CLOSE_TAG) :]
        keep = next(
            (n for n in range(len(CLOSE_TAG) - 1, 0, -1) if text.endswith(CLOSE_TAG[:n])), 0
        )
        self._held = text[len(text) - keep :]
        self._passed += len(text) - keep
        return text[: len(text) - keep]

    def flush(self) -> str:
        """A held ``"</thi"`` at the end of the stream was text."""
        held, self._held = self._held, ""
        return held


def settle(
    content: str,
    thinking: str,
    calls: list[ToolCall],
    offered: Collection[str],
    reasoning_until: int | None = None,
) -> Settled:
    """The final texts and calls of an answer whose stream ended normally; the content before
    ``reasoning_until`` (where a lone ``</think>`` was) is reasoning."""
    if reasoning_until is not None and not thinking.strip():
        thinking, content = content[:reasoning_until].strip(), content[reasoning_until:].lstrip()
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
