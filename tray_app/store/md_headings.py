"""Demote the headings inside a message below the export's own role headings.

An exported chat gives every message a ``## You`` / ``## Assistant`` heading; an answer's own
``#`` and ``##`` would otherwise sit at the same level as (or above) them, and the outline of
the document would lose which message they belong to. Headings are found the CommonMark way,
line by line: ATX headings (``# Title``, at most three spaces in) and setext headings (a text
line underlined with ``===`` or ``---``), never inside a fenced code block (````` ``` ````` or
``~~~``, closed by a fence of the same character at least as long) or an indented one.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# A line that cannot be a setext heading's text: blank, indented code, or a block of its own.
_NOT_PARAGRAPH = re.compile(r"^(\s*$| {4}|\t| {0,3}([#>|]|[-*+][ \t]|\d{1,9}[.)][ \t]|`{3}|~{3}))")
MAX_LEVEL = 6


def demote_headings(text: str, by: int = 2) -> str:
    """``text`` with each heading ``by`` levels deeper (at most level 6); code untouched.

    Linear in the text: one pass over its lines, no backtracking pattern."""
    out: list[str] = []
    fence: tuple[str, int] | None = None  # the open fence's character and length
    previous_is_text = False
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if (
                opened is not None
                and opened.group(1)[0] == fence[0]
                and len(opened.group(1)) >= fence[1]
                and not opened.group(2).strip()
            ):
                fence = None
            out.append(line)
            previous_is_text = False
            continue
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = (opened.group(1)[0], len(opened.group(1)))
            out.append(line)
            previous_is_text = False
            continue
        atx = _ATX.match(line)
        if atx:
            level = min(MAX_LEVEL, len(atx.group(2)) + by)
            out.append(atx.group(1) + "#" * level + line[atx.end() :])
            previous_is_text = False
            continue
        underline = _SETEXT.match(line)
        if underline and previous_is_text:
            level = min(MAX_LEVEL, (1 if underline.group(1)[0] == "=" else 2) + by)
            out[-1] = "#" * level + " " + out[-1].strip()
            previous_is_text = False
            continue
        previous_is_text = not _NOT_PARAGRAPH.match(line)
        out.append(line)
    return "\n".join(out)
