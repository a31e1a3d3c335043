"""Whole entries of a listing that fit the room the loop gives a result.

``fit_result`` would keep a proportion of a list after the fact; a listing knows its entries and
how the model can ask for the rest, so it keeps as many whole entries as fit, counts the others
(``<key>_omitted``) and says how to get them (``rest``). Linear in the entries, each measured once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tray_app.tools.fit import json_chars

SLACK = 64  # the numbers in the facts may grow by a few digits once filled in


def fitting(entries: Sequence[Any], room: int) -> int:
    """How many leading ``entries`` fit ``room`` characters of JSON (with ``", "`` between)."""
    left = room
    for count, entry in enumerate(entries):
        left -= json_chars(entry) + (2 if count else 0)
        if left < 0:
            return count
    return len(entries)


def room_for(result: dict[str, Any], key: str, limit: int | None) -> int | None:
    """The characters ``result[key]`` may take: ``limit`` less the rest of the result."""
    if limit is None:
        return None
    return max(0, limit - json_chars({**result, key: []}) - SLACK)
