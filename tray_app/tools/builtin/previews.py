"""The bounded texts approval previews are made of: unified diffs and cut listings.

Previews run the same plan as their tool, so a call that would fail is refused before the user
is asked (the toolbox turns a failure into ``kind: error``). Every text is bounded.
"""

from __future__ import annotations

import difflib
import re

from tray_app.tools.fs.fs_safe import split_lines
from tray_app.tools.fs.text_codec import with_newlines

PREVIEW_MAX_CHARS = 20_000
NEW_FILE_LINES = 40
TREE_MAX_LINES = 200
DIFF_MAX_BYTES = 1024 * 1024
DIFF_MAX_LINE_PRODUCT = 25_000_000
DIFF_CONTEXT = 3  # difflib is quadratic in the worst case


def _bounded(lines: list[str], *, max_lines: int | None = None) -> tuple[str, bool]:
    """Join lines up to ``max_lines`` and ``PREVIEW_MAX_CHARS``; say whether anything was cut."""
    out: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if max_lines is not None and index >= max_lines:
            return "".join(out), True
        if used + len(line) > PREVIEW_MAX_CHARS:
            out.append(line[: max(0, PREVIEW_MAX_CHARS - used)])
            return "".join(out), True
        out.append(line)
        used += len(line)
    return "".join(out), False


def diff_text(old_text: str, new_text: str, name: str) -> tuple[str, bool]:
    """A bounded unified diff of two texts (compared with ``\n`` line endings).

    Only the lines between the common first and last lines go to difflib (quadratic in the
    worst case), so one changed line in a long file costs no more than in a short one; the
    common lines are found by comparing the texts a block at a time, never line by line.
    """
    old = with_newlines(old_text, "\n")
    new = with_newlines(new_text, "\n")
    if old == new:
        return "(no change)\n", False
    head_end = old.rfind("\n", 0, _common_prefix(old, new)) + 1  # the same offset in both
    old_tail, _new_tail = _tail_starts(old, new, head_end)
    start = _lines_back(old, head_end, DIFF_CONTEXT)
    old_end = _lines_on(old, old_tail, DIFF_CONTEXT)
    new_end = len(new) - (len(old) - old_end)
    old_rows = _line_count(old, start, old_end)
    new_rows = _line_count(new, start, new_end)
    if old_rows * new_rows > DIFF_MAX_LINE_PRODUCT:
        now, after = _line_count(old, 0, len(old)), _line_count(new, 0, len(new))
        return f"(too many lines to compare: {now} now, {after} after)\n", True
    old_part = split_lines(old[start:old_end])
    new_part = split_lines(new[start:new_end])
    diff = difflib.unified_diff(old_part, new_part, fromfile=name, tofile=name, n=DIFF_CONTEXT)
    offset = old.count("\n", 0, start)
    lines = [_shift_hunk(line, offset) for line in diff]
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    return _bounded(lines)


_BLOCK = 64 * 1024  # characters compared in one go


def _common_prefix(a: str, b: str, limit: int | None = None) -> int:
    """How many characters ``a`` and ``b`` share at the start (at most ``limit``)."""
    n = min(len(a), len(b)) if limit is None else limit
    i = 0
    while i < n:
        j = min(n, i + _BLOCK)
        if a[i:j] != b[i:j]:
            lo, hi = i, j  # a[:lo] == b[:lo], a[:hi] != b[:hi]
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if a[lo:mid] == b[lo:mid] else (lo, mid)
            return lo
        i = j
    return n


def _common_suffix(a: str, b: str, limit: int) -> int:
    """How many characters ``a`` and ``b`` share at the end (at most ``limit``)."""
    la, lb, i = len(a), len(b), 0
    while i < limit:
        j = min(limit, i + _BLOCK)
        if a[la - j : la - i] != b[lb - j : lb - i]:
            lo, hi = i, j
            while hi - lo > 1:
                mid = (lo + hi) // 2
                same = a[la - mid : la - lo] == b[lb - mid : lb - lo]
                lo, hi = (mid, hi) if same else (lo, mid)
            return lo
        i = j
    return limit


def _tail_starts(old: str, new: str, head_end: int) -> tuple[int, int]:
    """Where the common last lines start in each text (whole lines, after ``head_end``)."""
    shared = _common_suffix(old, new, min(len(old), len(new)) - head_end)
    at_old, at_new = len(old) - shared, len(new) - shared
    if (at_old == head_end or old[at_old - 1] == "\n") and (
        at_new == head_end or new[at_new - 1] == "\n"
    ):
        return at_old, at_new
    nxt = old.find("\n", at_old)
    if nxt < 0:
        return len(old), len(new)
    return nxt + 1, at_new + (nxt + 1 - at_old)


def _lines_back(text: str, line_start: int, lines: int) -> int:
    """The start of the line ``lines`` lines before the one at ``line_start``."""
    position = line_start
    for _ in range(lines):
        if position == 0:
            break
        position = text.rfind("\n", 0, position - 1) + 1
    return position


def _lines_on(text: str, line_start: int, lines: int) -> int:
    """The start of the line ``lines`` lines after the one at ``line_start`` (or the end)."""
    position = line_start
    for _ in range(lines):
        nxt = text.find("\n", position)
        if nxt < 0:
            return len(text)
        position = nxt + 1
    return position


def _line_count(text: str, start: int, end: int) -> int:
    """The lines of ``text[start:end]`` as ``split_lines`` counts them."""
    breaks = text.count("\n", start, end)
    return breaks + (1 if end > start and text[end - 1] != "\n" else 0)


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(line: str, offset: int) -> str:
    """Hunk headers of a diff of slices, renumbered to the whole file's lines."""
    match = _HUNK.match(line) if offset and line.startswith("@@") else None
    if match is None:
        return line
    old_start, old_len, new_start, new_len = match.groups()
    old_start = str(int(old_start) + offset) if old_start != "0" else old_start
    new_start = str(int(new_start) + offset) if new_start != "0" else new_start
    return f"@@ -{old_start}{old_len or ''} +{new_start}{new_len or ''} @@" + line[match.end() :]
