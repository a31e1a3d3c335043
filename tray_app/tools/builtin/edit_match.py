"""Finding the one place an edit applies to (edit_file's matching rules). Pure text, no I/O.

1. ``old_text`` exactly, and exactly once (overlapping occurrences count).
2. Else line by line with whitespace ignored (leading, trailing and runs inside a line), again
   exactly once; the replacement is re-indented to the file's indentation, so a model that lost
   the tabs or the depth of a block still edits the right lines without breaking their layout.
3. Else the error names how many places matched, or shows the lines nearest to what was asked,
   with their numbers, so the next try can copy them (``edit_nearest``).

Every step is linear in the file's size, whatever the model sent (``edit_lines``): places are
found with ``str.find`` and counted up to ``MAX_PLACES``, their line numbers come from one
pass, and the whitespace-blind match is one ``str.find`` over the squashed lines that can hold
it, never a comparison per line and per offset. Only the search for the nearest lines is not a
single pass, and it is capped in size and time and stops on ``cancel``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from tray_app.tools.builtin.edit_lines import (
    MAX_PLACES,
    line_numbers,
    loose_places,
    places,
    skip_lines,
    squash,
)
from tray_app.tools.builtin.edit_nearest import NoMatch, nearest

__all__ = ["MAX_PLACES", "Match", "NoMatch", "apply_all", "find"]

SHOW_PLACES = 5


@dataclass(frozen=True)
class Match:
    start: int  # offsets in the text
    end: int
    replacement: str
    line: int  # 1-based first line of the match
    how: str  # "exact" or "whitespace"


def find(text: str, old: str, new: str, *, cancel: threading.Event | None = None) -> Match:
    """The single place ``old`` applies in ``text``; ``NoMatch`` otherwise. ``cancel`` stops
    the search for the nearest lines (the only step that is not a single pass)."""
    if not old:
        raise NoMatch(
            "old_text is empty; copy the lines to replace from the file", code="edit_old_text_empty"
        )
    found = places(text, old)
    if len(found) == 1:
        start = found[0]
        return Match(start, start + len(old), new, line_numbers(text, [start])[0], "exact")
    if len(found) > 1:
        raise _too_many(len(found), line_numbers(text, found[:SHOW_PLACES]))
    return _by_lines(text, old, new, cancel)


def _too_many(count: int, lines: list[int]) -> NoMatch:
    shown = ", ".join(str(n) for n in lines[:SHOW_PLACES]) + (", …" if count > SHOW_PLACES else "")
    if count > MAX_PLACES:
        return NoMatch(
            f"old_text matches more than {MAX_PLACES} places (lines {shown}); it must match "
            "exactly one: include more of the surrounding lines",
            code="edit_too_many_matches",
            n=MAX_PLACES,
            lines=shown,
        )
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


def _wanted(old: str) -> list[str]:
    """``old``'s lines squashed, without the blank ones at either end."""
    wanted = [squash(line) for line in old.split("\n")]
    first = next((i for i, line in enumerate(wanted) if line), len(wanted))
    last = next((i for i in range(len(wanted) - 1, -1, -1) if wanted[i]), -1)
    return wanted[first : last + 1]


def _by_lines(text: str, old: str, new: str, cancel: threading.Event | None) -> Match:
    wanted = _wanted(old)
    if not wanted:
        raise NoMatch(
            "old_text holds only whitespace; copy the lines to replace from the file",
            code="edit_old_text_blank",
        )
    hits = loose_places(text, wanted)
    if len(hits) > 1:
        raise _too_many(len(hits), [n + 1 for n in hits[:SHOW_PLACES]])
    if not hits:
        raise nearest(text, wanted, cancel)
    first = hits[0]
    start = skip_lines(text, 0, first)
    end = skip_lines(text, start, len(wanted))
    chosen = _split_nl(text[start:end])
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


def apply_all(
    text: str, edits: list[tuple[str, str]], *, cancel: threading.Event | None = None
) -> tuple[str, list[Match]]:
    """Apply the edits in order, each to the result of the ones before; all or nothing.
    ``cancel`` is looked at between edits too (each one is a pass over the whole text)."""
    matches: list[Match] = []
    for number, (old, new) in enumerate(edits, start=1):
        if cancel is not None and cancel.is_set():
            raise NoMatch("cancelled: the user stopped the turn", code="stopped")
        try:
            match = find(text, old, new, cancel=cancel)
        except NoMatch as exc:
            prefix = f"edit {number} of {len(edits)}: " if len(edits) > 1 else ""
            raise NoMatch(prefix + str(exc), code=exc.code, **exc.params) from None
        text = text[: match.start] + match.replacement + text[match.end :]
        matches.append(match)
    return text, matches
