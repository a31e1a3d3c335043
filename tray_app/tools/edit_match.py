"""Finding the one place an edit applies to (edit_file's matching rules). Pure text, no I/O.

1. ``old_text`` exactly, and exactly once (overlapping occurrences count).
2. Else line by line with whitespace ignored (leading, trailing and runs inside a line), again
   exactly once; the replacement is re-indented to the file's indentation, so a model that lost
   the tabs or the depth of a block still edits the right lines without breaking their layout.
3. Else the error names how many places matched, or shows the lines nearest to what was asked,
   with their numbers, so the next try can copy them.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from tray_app.tool_errors import CodedError

SHOW_PLACES = 5
NEAREST_CONTEXT = 2
NEAREST_MAX_LINES = 20_000  # lines compared when looking for the nearest text
LINE_SHOW_CHARS = 200
NEAREST_CANDIDATES = 50  # lines compared closely, of those sharing the most words
_WORD = re.compile(r"\w+")


class NoMatch(CodedError, ValueError):
    """``str()`` says why, for the model; the catcher adds the file's ``path`` to the params."""


@dataclass(frozen=True)
class Match:
    start: int  # offsets in the text
    end: int
    replacement: str
    line: int  # 1-based first line of the match
    how: str  # "exact" or "whitespace"


def _squash(line: str) -> str:
    return " ".join(line.split())


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _positions(text: str, needle: str) -> list[int]:
    found: list[int] = []
    index = text.find(needle)
    while index >= 0:
        found.append(index)
        index = text.find(needle, index + 1)
    return found


def find(text: str, old: str, new: str) -> Match:
    """The single place ``old`` applies in ``text``; ``NoMatch`` otherwise."""
    if not old:
        raise NoMatch(
            "old_text is empty; copy the lines to replace from the file", code="edit_old_text_empty"
        )
    places = _positions(text, old)
    if len(places) == 1:
        start = places[0]
        return Match(start, start + len(old), new, _line_of(text, start), "exact")
    if len(places) > 1:
        raise _too_many(len(places), [_line_of(text, p) for p in places])
    return _by_lines(text, old, new)


def _too_many(count: int, lines: list[int]) -> NoMatch:
    shown = ", ".join(str(n) for n in lines[:SHOW_PLACES]) + (", …" if count > SHOW_PLACES else "")
    return NoMatch(
        f"old_text matches {count} places (lines {shown}); it must match exactly one: "
        "include more of the surrounding lines",
        code="edit_many_matches",
        n=count,
        lines=shown,
    )


def _split_nl(text: str) -> list[str]:
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _by_lines(text: str, old: str, new: str) -> Match:
    file_lines = _split_nl(text)
    wanted = [_squash(line) for line in old.split("\n")]
    while wanted and not wanted[-1]:
        wanted.pop()
    while wanted and not wanted[0]:
        wanted.pop(0)
    if not wanted:
        raise NoMatch(
            "old_text holds only whitespace; copy the lines to replace from the file",
            code="edit_old_text_blank",
        )
    squashed = [_squash(line) for line in file_lines]
    hits = [
        i
        for i in range(len(squashed) - len(wanted) + 1)
        if squashed[i] == wanted[0] and squashed[i : i + len(wanted)] == wanted
    ]
    if len(hits) > 1:
        raise _too_many(len(hits), [i + 1 for i in hits])
    if not hits:
        raise _nearest(file_lines, squashed, wanted)
    first = hits[0]
    chosen = file_lines[first : first + len(wanted)]
    start = sum(len(line) for line in file_lines[:first])
    end = start + sum(len(line) for line in chosen)
    old_lines = [line for line in old.split("\n") if line.strip()]
    replacement = _reindent(new, _indent(old_lines[0]), _indent(chosen[0]))
    ending = chosen[-1][len(chosen[-1].rstrip("\r\n")) :]
    if replacement and ending and not replacement.endswith("\n"):
        replacement += ending
    elif not ending and replacement.endswith("\n"):
        replacement = replacement[:-1]
    return Match(start, end, replacement, first + 1, "whitespace")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _reindent(new: str, old_base: str, file_base: str) -> str:
    """Lines of ``new`` moved from ``old_base`` indentation to the file's ``file_base``."""
    out: list[str] = []
    for line in new.split("\n"):
        if not line.strip():
            out.append(line.strip(" \t"))
        elif line.startswith(old_base):
            out.append(file_base + line[len(old_base) :])
        else:
            out.append(file_base + line.lstrip(" \t"))
    return "\n".join(out)


def _nearest(file_lines: list[str], squashed: list[str], wanted: list[str]) -> NoMatch:
    """The error for no match: the file's lines most like the first line asked for."""
    if not file_lines:
        return NoMatch("old_text was not found: the file is empty", code="edit_no_match_empty_file")
    target = wanted[0]
    # Cheap first: the lines sharing the most words with the one asked for; then difflib's
    # ratio on those few only (it costs too much on every line of a long file).
    wanted_words = set(_WORD.findall(target.casefold()))
    scored: list[tuple[int, int]] = []
    for index, line in enumerate(squashed[:NEAREST_MAX_LINES]):
        if line:
            shared = len(wanted_words.intersection(_WORD.findall(line.casefold())))
            scored.append((shared, -index))
    scored.sort(reverse=True)
    best, best_ratio = 0, -1.0
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    for _shared, neg_index in scored[:NEAREST_CANDIDATES]:
        matcher.set_seq1(squashed[-neg_index])
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = -neg_index, ratio
    low = max(0, best - NEAREST_CONTEXT)
    high = min(len(file_lines), best + len(wanted) + NEAREST_CONTEXT)
    shown = []
    for number in range(low, high):
        line = file_lines[number].rstrip("\r\n")
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


def apply_all(text: str, edits: list[tuple[str, str]]) -> tuple[str, list[Match]]:
    """Apply the edits in order, each to the result of the ones before; all or nothing."""
    matches: list[Match] = []
    for number, (old, new) in enumerate(edits, start=1):
        try:
            match = find(text, old, new)
        except NoMatch as exc:
            prefix = f"edit {number} of {len(edits)}: " if len(edits) > 1 else ""
            raise NoMatch(prefix + str(exc), code=exc.code, **exc.params) from None
        text = text[: match.start] + match.replacement + text[match.end :]
        matches.append(match)
    return text, matches
