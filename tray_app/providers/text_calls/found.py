"""What the scanners find: a call as written, and a stretch of the answer that is markup."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tray_app.base.messages import ToolCall

MAX_CALLS = 32


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
class Raw:
    """One call as written: its name and its arguments (object, JSON text, or None)."""

    name: str
    arguments: Any = None
    error: str | None = None


@dataclass
class Region:
    """A stretch of the text that is markup: cut out, replaced by ``keep`` (harmony's final)."""

    start: int
    end: int
    calls: list[Raw] = field(default_factory=list)
    thinking: str = ""
    keep: str = ""
    unreadable: bool = False


def region(start: int, end: int, raws: list[Raw] | None) -> Region:
    if not raws:
        return Region(start, end, unreadable=True)
    return Region(start, end, calls=raws)
