"""The "did you mean" of edit_file: the file's lines nearest to an ``old_text`` found nowhere.

It runs in the preview, before anyone is asked, on text the model chose: so it is bounded in
every way. It scores at most ``MAX_LINES`` lines, ``LINE_CHARS`` of each and ``SCAN_CHARS`` in
all, by the words they share with the first line asked for; compares only the best
``CANDIDATES`` closely (difflib, on at most ``COMPARE_CHARS`` of each side: it is quadratic);
and stops at ``SECONDS`` or when ``cancel`` is set, answering with the best line found so far.
"""

from __future__ import annotations

import difflib
import re
import threading
import time

from tray_app.tool_errors import CodedError

MAX_LINES = 20_000  # lines scored
LINE_CHARS = 400  # of a line, scored for shared words
SCAN_CHARS = 2_000_000  # scored in all
CANDIDATES = 50  # lines compared closely, of those sharing the most words
COMPARE_CHARS = 200  # of each side, compared closely
SECONDS = 0.25  # the whole search, then the best so far
CONTEXT = 2  # lines shown before and after
SHOW_LINES = 20  # of the lines asked for, shown
LINE_SHOW_CHARS = 200
_CHECK_EVERY = 128  # lines scored between looks at the clock and the cancel flag
_WORD = re.compile(r"\w+")


class NoMatch(CodedError, ValueError):
    """``str()`` says why, for the model; the catcher adds the file's ``path`` to the params."""


def _squash(line: str) -> str:
    return " ".join(line.split())


def _file_lines(text: str) -> list[str]:
    """The first ``MAX_LINES`` lines, without their line breaks (no empty last line)."""
    lines = text.split("\n", MAX_LINES)
    if len(lines) > MAX_LINES:
        lines.pop()  # the rest of the file, in one piece
    elif lines and not lines[-1]:
        lines.pop()
    return lines


class _Search:
    """One bounded search: its clock and its cancel flag."""

    def __init__(self, cancel: threading.Event | None, seconds: float) -> None:
        self.cancel = cancel
        self.deadline = time.monotonic() + seconds

    def over(self) -> bool:
        return (self.cancel is not None and self.cancel.is_set()) or (
            time.monotonic() > self.deadline
        )

    def scores(self, lines: list[str], target: str) -> list[tuple[int, int]]:
        """``(shared words, -index)`` of the lines scored before the budget ran out."""
        wanted_words = set(_WORD.findall(target.casefold()))
        scored: list[tuple[int, int]] = []
        scanned = 0
        for index, line in enumerate(lines):
            if index % _CHECK_EVERY == 0 and index and self.over():
                break
            head = line[:LINE_CHARS]
            scanned += len(head)
            if scanned > SCAN_CHARS:
                break
            words = _WORD.findall(head.casefold())
            if words or head.strip():
                scored.append((len(wanted_words.intersection(words)), -index))
        scored.sort(reverse=True)
        return scored

    def best(self, lines: list[str], target: str) -> int:
        """The index of the line most like ``target``: word scores, then difflib's ratio."""
        top = self.scores(lines, target)[:CANDIDATES]
        best, best_ratio = (-top[0][1] if top else 0), -1.0  # the most words in common
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(target[:COMPARE_CHARS])
        for _shared, neg_index in top:
            if self.over():
                break
            matcher.set_seq1(_squash(lines[-neg_index][:LINE_CHARS])[:COMPARE_CHARS])
            if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
                continue
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best, best_ratio = -neg_index, ratio
        return best


def nearest(text: str, wanted: list[str], cancel: threading.Event | None = None) -> NoMatch:
    """The error for no match: the file's lines most like ``wanted`` (squashed lines asked
    for, the first one not blank), numbered so the next try can copy them."""
    lines = _file_lines(text)
    if not lines:
        return NoMatch("old_text was not found: the file is empty", code="edit_no_match_empty_file")
    best = _Search(cancel, SECONDS).best(lines, wanted[0])
    low = max(0, best - CONTEXT)
    high = min(len(lines), best + min(len(wanted), SHOW_LINES) + CONTEXT)
    shown = []
    for number in range(low, high):
        line = lines[number].rstrip("\r")
        if len(line) > LINE_SHOW_CHARS:
            line = line[:LINE_SHOW_CHARS] + " …"
        shown.append(f"{number + 1}: {line}")
    return NoMatch(
        "old_text was not found (not exactly, nor with whitespace ignored). The nearest lines "
        f"in the file ({low + 1}-{high}):\n" + "\n".join(shown),
        code="edit_no_match",
        first=low + 1,
        last=high,
        nearest="\n".join(shown),  # the card shows them under its sentence
    )
