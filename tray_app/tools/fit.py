"""Make a tool's result fit the characters the loop gives it, as whole JSON.

A result cut inside its JSON loses its closing facts (``truncated``, ``line_range``) and can
make the model misread the rest, so results are never cut as text: tools that know their data
size themselves first (read_file stops at a whole line and says where to go on), and
``fit_result`` then shrinks whatever is still too large, biggest first: a long string keeps its
start and says how many characters were left out, a long list keeps its first entries and its
key gets a sibling ``<key>_omitted`` with the count. The work is bounded: at most
``MAX_STEPS`` passes over a result the tools already cap in size.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tray_app.tools.result import ToolResult

MAX_STEPS = 64
MIN_STRING = 64  # a string shorter than this is not worth cutting
MARGIN = 400  # room for the note saying what was cut


def json_chars(value: Any) -> int:
    """The characters of ``value`` as the model receives it (JSON, non-ASCII kept)."""
    return len(json.dumps(value, ensure_ascii=False, default=str))


def cut_note(omitted: int) -> str:
    return f"…[{omitted} more characters not shown]"


def fit_result(result: ToolResult, limit: int) -> ToolResult:
    """``result`` if its JSON fits ``limit`` characters, else a copy shrunk to fit, with
    ``cut_to_fit`` saying so. Never cuts inside the JSON; always returns a dict that fits.
    ``card_*`` keys (a tool's images) are not the model's text: kept whole and not counted."""
    card = {k: v for k, v in result.items() if k.startswith("card_")}
    if card:
        text = {k: v for k, v in result.items() if k not in card}
        fitted = fit_result(text, limit)
        return result if fitted is text else {**fitted, **card}
    size = json_chars(result)
    if size <= limit:
        return result
    out: Any = copy.deepcopy(result)  # containers copied, strings shared
    target = max(0, limit - MARGIN)
    over = size - target
    for _ in range(MAX_STEPS):
        if over <= 0 or not _shrink_largest(out, over):
            break
        over = json_chars(out) - target
    out["cut_to_fit"] = (
        f"this result was {size} characters; it was shortened to fit the {limit} the model "
        "may receive (see the *_omitted counts and the notes in the text)"
    )
    if json_chars(out) <= limit:
        return dict(out)
    return {  # nothing left to shrink (a result of thousands of small keys): say so plainly
        "success": bool(result.get("success", False)),
        "error": f"the result was {size} characters, too large to hand to the model "
        f"(at most {limit}); ask for less (a narrower path, a smaller range)",
    }


def _shrink_largest(node: dict[str, Any], over: int) -> bool:
    """Shrink the largest string or list below ``node`` by about ``over`` characters."""
    found = _largest(node)
    if found is None:
        return False
    parent, key, value, cost = found
    share = max(0.0, (cost - over) / cost)  # the part of it that may stay, as JSON
    if isinstance(value, str):
        keep = int(len(value) * share) - len(cut_note(len(value)))
        keep = max(0, min(keep, len(value) - 1))
        parent[key] = value[:keep] + cut_note(len(value) - keep)
        return True
    # A list: keep its first entries, in proportion; the count of the rest goes beside it.
    assert isinstance(value, list) and isinstance(parent, dict) and isinstance(key, str)
    keep = max(0, min(int(len(value) * share), len(value) - 1))
    drop = len(value) - keep
    parent[key] = value[:keep]
    counter = f"{key}_omitted"
    parent[counter] = int(parent.get(counter) or 0) + drop
    return True


def _largest(node: Any) -> tuple[Any, Any, Any, int] | None:
    """(parent, key, value, JSON size) of the biggest shrinkable string or dict-held list.
    Each value is measured once per pass; small entries are not looked into."""
    best: tuple[Any, Any, Any, int] | None = None
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        items = current.items() if isinstance(current, dict) else enumerate(current)
        for key, value in items:
            cost = -1
            if isinstance(value, str) and len(value) >= MIN_STRING:
                cost = json_chars(value)
            elif isinstance(value, list) and value:
                sizes = [json_chars(item) for item in value]
                total = sum(sizes) + 2 * len(sizes)
                for item, size in zip(value, sizes, strict=True):
                    if isinstance(item, dict | list) and size >= MIN_STRING:
                        stack.append(item)
                # Only a list held by a dict can be shortened with a count beside it; one
                # entry that is most of it is shrunk inside instead.
                if isinstance(current, dict) and max(sizes) * 2 <= total:
                    cost = total
            elif isinstance(value, dict):
                stack.append(value)
            if cost > 0 and (best is None or cost > best[3]):
                best = (current, key, value, cost)
    return best
