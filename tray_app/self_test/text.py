"""The self-test report's layout. Its words are the catalogue's ``self_test.*``; the
``ok``/``FAIL``/``skip`` marks and the details (module, file and library names, error
messages) stay as they are, so a report pasted into an issue reads the same to everyone."""

from __future__ import annotations

import unicodedata

#: The report's own lines when the catalogue itself cannot be read (web/ missing or broken,
#: which the report then says): English, the language the code is written in.
WITHOUT_CATALOGUE = {
    "no_display": "no display (DISPLAY / WAYLAND_DISPLAY unset)",
    "whole": "metona-tray self-test: whole",
    "broken": "metona-tray self-test: broken: {n} check(s) failed",
}
WIDTH = 19  # columns of the title field (the longest English title, "settings and store", + 1)


def padded(title: str, width: int = WIDTH) -> str:
    """``title`` padded to ``width`` terminal columns (CJK characters take two)."""
    columns = sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in title)
    return title + " " * max(1, width - columns)
