"""The bounded texts approval previews are made of: unified diffs and cut listings.

Previews run the same plan as their tool, so a call that would fail is refused before the user
is asked (the toolbox turns a failure into ``kind: error``). Every text is bounded.
"""

from __future__ import annotations

import difflib
import re

from tray_app.tools.fs_safe import split_lines
from tray_app.tools.text_codec import with_newlines

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

    Only the part between the common first and last lines goes to difflib (quadratic in the
    worst case), so one changed line in a long file costs no more than in a short one.
    """
    old_lines = split_lines(with_newlines(old_text, "\n"))
    new_lines = split_lines(with_newlines(new_text, "\n"))
    shortest = min(len(old_lines), len(new_lines))
    head = 0
    while head < shortest and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    if head == len(old_lines) == len(new_lines):
        return "(no change)\n", False
    start = max(0, head - DIFF_CONTEXT)
    old_part = old_lines[start : len(old_lines) - max(0, tail - DIFF_CONTEXT)]
    new_part = new_lines[start : len(new_lines) - max(0, tail - DIFF_CONTEXT)]
    if len(old_part) * len(new_part) > DIFF_MAX_LINE_PRODUCT:
        note = f"(too many lines to compare: {len(old_lines)} now, {len(new_lines)} after)\n"
        return note, True
    diff = difflib.unified_diff(old_part, new_part, fromfile=name, tofile=name, n=DIFF_CONTEXT)
    lines = [_shift_hunk(line, start) for line in diff]
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    return _bounded(lines)


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
