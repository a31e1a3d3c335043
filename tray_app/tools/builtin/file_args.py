"""What the file tools' argument models share: the path help and the mending of slips.

Small models send ``"utf8"``, ``"ts"`` for ``".ts"``, a string where a list is expected, or a
line number of 0: such slips are mended here instead of failing the call. Numeric caps are
clamped, not refused. Each tool's model lives in its own module; its JSON schema is exactly what
the model sees.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from tray_app.tools.fs.text_codec import normalize_name

PATH_HELP = "Absolute path, or a path relative to the workspace folder. '~' means the home folder."


def _encoding(value: Any) -> Any:
    """Any Python text codec name, ``base64``, or None (detect); unknown names fail here."""
    if isinstance(value, str):
        return normalize_name(value)
    return value


JsonKind = Literal["object", "array"]


def json_kind(value: Any) -> JsonKind | None:
    """``object`` or ``array`` when a model sent JSON data where text was asked for."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return None


def json_text(value: Any) -> str:
    """A model writing a JSON file often passes its content as the object itself: the text
    written is that object formatted (two-space indent, characters kept as they are)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def json_note(kind: JsonKind) -> str:
    """What the model is told when its content was a JSON object or array."""
    return (
        f"content was given as a JSON {kind}, not a string; it was written as JSON text "
        "formatted with a 2-space indent"
    )


def _clamp(value: Any, low: int, high: int) -> Any:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            return value  # pydantic reports it
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        # JSON's Infinity or 1e999: clamp like any other huge number; NaN is left to pydantic.
        return value if math.isnan(value) else (high if value > 0 else low)
    return max(low, min(high, int(value)))


def _extension(text: str) -> str:
    text = text.strip().lower()
    if text.startswith("*."):
        text = text[1:]
    return text if text.startswith(".") or not text else "." + text
