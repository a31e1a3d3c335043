"""The lines of one file that hold search_files' query: line number, column, shown text.

The answer is defined on the decoded text (``line_matches``: ``lower()`` of the text, searched
for ``query.lower()``). Most files are UTF-8 without a BOM and most queries are ASCII or
caseless (CJK, emoji), and for those the same lines are found in the raw bytes
(``ByteNeedle``) without decoding and lowering the whole file: only the matching lines are
decoded. Why that is exact:

* UTF-8 is self-synchronising and Python's decoder (``errors="replace"``) never folds an ASCII
  byte into a replacement, so a valid needle's bytes occur exactly where its characters occur
  in the decoded text, and a line break byte is a line break character;
* ``bytes.lower()`` lowers ASCII only; a character that ``str.lower()`` maps to ASCII is an
  ASCII letter, ``İ`` (U+0130, to ``i`` + U+0307) or the Kelvin sign (U+212A, to ``k``), and a
  file holding either of the last two is matched as text; a character with no case (upper and
  lower itself) is the lowering of no other character (both checked over all of Unicode by the
  tests).

Anything else (a BOM, a query with cased non-ASCII letters) is matched as text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tray_app.tools.fs.fs_safe import NotReadable, looks_binary, read_regular
from tray_app.tools.fs.text_codec import detect_bom

MAX_SEARCH_FILE_BYTES = 500 * 1024
MAX_MATCHES_PER_FILE = 10
MATCH_TEXT_CHARS = 200
# UTF-8 of the two non-ASCII characters whose lowercase holds ASCII: İ (its lowercase is two
# characters long, which also moves the columns after it) and the Kelvin sign (to ``k``).
_DOTTED_I = "\u0130".encode()
_KELVIN = "\u212a".encode()


def line_matches(text: str, query: str, case_sensitive: bool) -> list[dict[str, Any]]:
    """The first match on each matching line (1-based line and column), at most 10 lines.

    Finds occurrences in the whole text and maps them to lines, instead of lowering and
    searching line by line; the same answer, since ``lower()`` keeps every character's place
    (the one exception, ``İ``, takes the line-by-line way).
    """
    needle = query if case_sensitive else query.lower()
    if "\n" in needle:
        return []  # a line never holds a line break
    hay = text if case_sensitive else text.lower()
    if len(hay) != len(text):
        return _line_matches_by_line(text, needle, case_sensitive)
    found: list[dict[str, Any]] = []
    number, counted = 1, 0
    pos = hay.find(needle)
    while pos >= 0:
        number += hay.count("\n", counted, pos)
        start = hay.rfind("\n", 0, pos) + 1
        end = hay.find("\n", pos)
        end = len(hay) if end < 0 else end
        found.append(_match(text[start:end], number, pos - start))
        if len(found) >= MAX_MATCHES_PER_FILE or end >= len(hay):
            break
        counted = pos
        pos = hay.find(needle, end + 1)
    return found


def _line_matches_by_line(text: str, needle: str, case_sensitive: bool) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        hay = line if case_sensitive else line.lower()
        column = hay.find(needle)
        if column < 0:
            continue
        found.append(_match(line, number, column))
        if len(found) >= MAX_MATCHES_PER_FILE:
            break
    return found


def _match(line: str, number: int, column: int) -> dict[str, Any]:
    shown = line.strip()
    if len(shown) > MATCH_TEXT_CHARS:
        begin = max(0, column - MATCH_TEXT_CHARS // 3)
        shown = line[begin : begin + MATCH_TEXT_CHARS].strip() + " …"
        shown = ("… " if begin else "") + shown
    return {"line": number, "text": shown, "column": column + 1}


class ByteNeedle:
    """The query as UTF-8 bytes, for queries whose matches the raw bytes show exactly."""

    __slots__ = ("bytes", "case_sensitive")

    def __init__(self, needle: bytes, case_sensitive: bool) -> None:
        self.bytes = needle
        self.case_sensitive = case_sensitive

    @classmethod
    def of(cls, query: str, case_sensitive: bool) -> ByteNeedle | None:
        """None when the query must be matched as text (cased non-ASCII letters, surrogates)."""
        needle = query if case_sensitive else query.lower()
        if not case_sensitive and not all(
            char.isascii() or char.lower() == char == char.upper() for char in needle
        ):
            return None
        try:
            return cls(needle.encode("utf-8"), case_sensitive)
        except UnicodeEncodeError:  # lone surrogates: decoded text never holds them
            return None

    def matches(self, data: bytes) -> list[dict[str, Any]] | None:
        """``line_matches`` of ``data`` decoded as UTF-8; None: this file needs the text way."""
        needle = self.bytes
        if not self.case_sensitive and _lowers_to_ascii(data, needle):
            return None
        if b"\n" in needle:
            return []
        hay = data if self.case_sensitive else data.lower()
        found: list[dict[str, Any]] = []
        number, counted = 1, 0
        pos = hay.find(needle)
        while pos >= 0:
            number += hay.count(b"\n", counted, pos)
            start = hay.rfind(b"\n", 0, pos) + 1
            end = hay.find(b"\n", pos)
            end = len(hay) if end < 0 else end
            line = data[start:end].decode("utf-8", errors="replace")
            column = len(data[start:pos].decode("utf-8", errors="replace"))
            found.append(_match(line, number, column))
            if len(found) >= MAX_MATCHES_PER_FILE or end >= len(hay):
                break
            counted = pos
            pos = hay.find(needle, end + 1)
        return found


def _lowers_to_ascii(data: bytes, needle: bytes) -> bool:
    """Whether ``data`` holds a character that would lower differently as text than as bytes.
    (A one-byte test first: it is ``memchr``, the two-byte one is not.)"""
    if b"\xc4" in data and _DOTTED_I in data:
        return True
    return b"k" in needle and b"\xe2" in data and _KELVIN in data


def file_matches(
    path: Path, query: str, case_sensitive: bool, needle: ByteNeedle | None
) -> list[dict[str, Any]] | None:
    """The matches in a searchable file (regular, at most 500 KB, not binary); else None.

    ``needle``: ``ByteNeedle.of(query, case_sensitive)``, made once per search.
    """
    try:
        data, _ = read_regular(path, MAX_SEARCH_FILE_BYTES)
    except (OSError, NotReadable):
        return None
    if len(data) > MAX_SEARCH_FILE_BYTES:
        return None
    found = detect_bom(data)
    if found is not None:  # UTF-16 text from Windows tools is searched like any other
        text = data[len(found[0]) :].decode(found[1], errors="replace")
        return line_matches(text, query, case_sensitive)
    if looks_binary(data):
        return None
    if needle is not None:
        matches = needle.matches(data)
        if matches is not None:
            return matches
    return line_matches(data.decode("utf-8", errors="replace"), query, case_sensitive)
