"""Finding text in a file in time linear in its size, for edit_file's matching rules.

``places`` finds exact occurrences (overlapping ones too) with ``str.find``, at most
``MAX_PLACES + 1``; ``line_numbers`` numbers them in one pass. ``loose_places`` finds a block
of lines with whitespace ignored: squashed (``" ".join(line.split())``), each file line must
equal the line asked for. It squashes only the parts of the file that can hold the block (the
lines around each line holding the rarest of its words, merged), then finds the squashed
block there with one ``str.find``; every character is read a bounded number of times, so the
cost never grows with the number of lines asked for times the number in the file.
"""

from __future__ import annotations

import re

MAX_PLACES = 1000  # places counted; past them the error says "more than"
WORDS_CHECKED = 32  # of the block's longest words, looked for before anything else
WORDS_COUNTED = 8  # of those, counted to pick the rarest
WINDOWS_UP_TO = 10_000  # lines holding the rarest word; past that the whole file is squashed
_LINE_BLOCK = 64 * 1024  # characters whose line breaks are counted in one call
#: A run of whitespace inside a line: the characters ``str.split()`` splits on, but ``\n``.
_RUN = re.compile(r"[^\S\n]+")


def squash(line: str) -> str:
    return " ".join(line.split())


def squash_lines(text: str) -> str:
    """``text`` with each line squashed like ``squash``, line for line (the same ``\\n``s)."""
    runs = _RUN.sub(" ", text)  # now a run is one space: a line's ends are at most one
    squashed = runs.replace(" \n", "\n").replace("\n ", "\n")
    return squashed.removeprefix(" ").removesuffix(" ")


def places(text: str, needle: str, start: int = 0, end: int | None = None) -> list[int]:
    """Where ``needle`` starts in ``text[start:end]`` (overlapping ones too), at most
    ``MAX_PLACES + 1``."""
    stop = len(text) if end is None else end
    found: list[int] = []
    index = text.find(needle, start, stop)
    while index >= 0 and len(found) <= MAX_PLACES:
        found.append(index)
        index = text.find(needle, index + 1, stop)
    return found


def line_numbers(text: str, offsets: list[int]) -> list[int]:
    """The 1-based lines of ascending ``offsets``, counted in one pass."""
    numbers, line, last = [], 1, 0
    for offset in offsets:
        line += text.count("\n", last, offset)
        last = offset
        numbers.append(line)
    return numbers


def skip_lines(text: str, start: int, lines: int) -> int:
    """The offset ``lines`` line breaks after ``start`` (``len(text)`` if there are fewer):
    counted a block at a time, then found inside the last block by one split."""
    left, end = lines, len(text)
    while left:
        stop = min(end, start + _LINE_BLOCK)
        inside = text.count("\n", start, stop)
        if inside < left:
            if stop == end:
                return end
            left -= inside
            start = stop
            continue
        rest = text[start:stop].split("\n", left)[-1]  # after the last break wanted
        return stop - len(rest)
    return start


def _back_lines(text: str, line_start: int, lines: int, floor: int) -> int:
    """The start of the line ``lines`` lines before the one at ``line_start``, not below
    ``floor`` (a line start): the line breaks are counted back a block at a time."""
    need, end = lines + 1, line_start  # the break before line_start is the first one
    while end > floor:
        start = max(floor, end - _LINE_BLOCK)
        inside = text.count("\n", start, end)
        if inside >= need:
            return start + len(text[start:end].rsplit("\n", need)[0]) + 1
        need -= inside
        end = start
    return floor


def _rarest_word(text: str, wanted: list[str]) -> tuple[str, int] | None:
    """The block's rarest word (of its longest ones) and how often it occurs, or None when
    one of them is not in the file at all (then no line can match)."""
    words = sorted({word for line in wanted for word in line.split(" ") if word}, key=len)
    longest = words[::-1][:WORDS_CHECKED]
    if not all(word in text for word in longest):
        return None
    return min(((w, text.count(w)) for w in longest[:WORDS_COUNTED]), key=lambda wc: wc[1])


def _windows(text: str, word: str, lines: int) -> list[tuple[int, int]]:
    """The parts of ``text`` (whole lines, ascending, apart) holding every block of ``lines``
    lines that contains ``word``: ``lines - 1`` lines around each line holding it, merged."""
    windows: list[tuple[int, int]] = []
    index = text.find(word)
    last_end = 0  # of the line met before (the next window never reaches back past it)
    while index >= 0:
        start = text.rfind("\n", 0, index) + 1
        stop = text.find("\n", index)
        after = len(text) if stop < 0 else stop + 1
        if windows and start < windows[-1][1]:
            # Inside the window: it now reaches as many lines past this line as past the last.
            low, high = windows[-1]
            windows[-1] = (low, skip_lines(text, high, text.count("\n", last_end, after)))
        else:
            floor = windows[-1][1] if windows else 0
            windows.append((_back_lines(text, start, lines - 1, floor), after))
            windows[-1] = (windows[-1][0], skip_lines(text, after, lines - 1))
            if len(windows) > 1 and windows[-1][0] <= windows[-2][1]:
                windows[-2:] = [(windows[-2][0], windows[-1][1])]
        last_end = after
        index = text.find(word, after) if after < len(text) else -1
    return windows


def loose_places(text: str, wanted: list[str]) -> list[int]:
    """The 0-based lines where the squashed lines ``wanted`` (the first and last not blank)
    start in ``text``, overlapping ones too; at most ``MAX_PLACES + 1``."""
    if text.count("\n") + 1 < len(wanted):
        return []  # fewer lines than asked for
    rarest = _rarest_word(text, wanted)
    if rarest is None:
        return []
    word, count = rarest
    windows = [(0, len(text))] if count > WINDOWS_UP_TO else _windows(text, word, len(wanted))
    needle = "\n".join(["", *wanted, ""])
    found: list[int] = []
    line, last = 0, 0
    for low, high in windows:
        line += text.count("\n", last, low)
        last = low
        # Between line breaks, so only whole lines match (the window is whole lines).
        squashed = "\n" + squash_lines(text[low:high]) + "\n"
        hits = places(squashed, needle)[: MAX_PLACES + 1 - len(found)]
        found += [line + n - 1 for n in line_numbers(squashed, hits)]
        if len(found) > MAX_PLACES:
            break
    return found
