"""Finding every marked call in an answer, left to right, in one forward pass per marker;
markers inside code fences are text."""

from __future__ import annotations

from tray_app.providers.text_calls.found import MAX_CALLS, Region
from tray_app.providers.text_calls.markup import (
    FUNCTION_OPEN,
    HARMONY_CHANNEL,
    HARMONY_START,
    MARKERS,
    MISTRAL,
    PYTHON_TAG,
    TOOL_CALL_OPEN,
    TOOL_CODE_FENCE,
)
from tray_app.providers.text_calls.special_tokens import (
    deepseek,
    harmony,
    mistral,
    python_tag,
    tool_code,
)
from tray_app.providers.text_calls.tagged import function_tag, tool_call_tag

_FENCE_INDENT = 16  # spaces a fence line may start with (looking further back is not linear)


def marked_regions(text: str) -> list[Region]:
    """Every marked call in ``text``, left to right (markers inside code fences are text)."""
    regions: list[Region] = []
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


def _parse_at(text: str, start: int, marker: str) -> Region | None:
    if marker == TOOL_CALL_OPEN:
        return tool_call_tag(text, start)
    if marker == FUNCTION_OPEN:
        return function_tag(text, start)
    if marker == PYTHON_TAG:
        return python_tag(text, start)
    if marker == MISTRAL:
        return mistral(text, start)
    if marker in (HARMONY_CHANNEL, HARMONY_START):
        return harmony(text, start)
    if marker == TOOL_CODE_FENCE:
        return tool_code(text, start)
    return deepseek(text, start, marker)
