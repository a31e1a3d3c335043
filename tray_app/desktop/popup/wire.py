"""Text on its way into the page: pure ASCII JavaScript, whatever the model wrote.

pywebview 6.2.1's GTK ``run_js``/``evaluate_js`` hands WebKit ``len(script)`` (characters)
where it wants bytes, so one non-ASCII character cut the script and lost a whole batch
(docs/architecture.md §1). Everything sent here is ASCII: JSON with ``ensure_ascii`` (which also
escapes U+2028/U+2029), and any other script with each non-ASCII UTF-16 unit written as
``\\uXXXX``, which JavaScript reads back as the same character in strings and identifiers.

Lone surrogates (a model can stream half a pair, which JSON decoding keeps) and NUL are
replaced by U+FFFD: neither survives the store, the DOM or a C string intact.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

_BAD = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"
DISPATCH = "(window.metona ? window.metona.dispatch(%s, %d) : -1)"


def clean_text(text: str) -> str:
    """``text`` with lone surrogates and NUL replaced by U+FFFD."""
    return _BAD.sub(REPLACEMENT, text)


def clean(value: Any) -> Any:
    """A JSON-able value with every string (keys too) cleaned."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def item(value: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """One event (a model of the event union, or one already plain) as a clean JSON object."""
    raw = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    cleaned: dict[str, Any] = clean(raw)
    return cleaned


def ascii_json(value: Any) -> str:
    """Compact JSON with only ASCII characters (safe for any engine's script length)."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)


def js_ascii(script: str) -> str:
    """A script with every non-ASCII character written as ``\\uXXXX`` escapes."""
    if script.isascii():
        return script
    out: list[str] = []
    for ch in script:
        code = ord(ch)
        if code < 0x80:
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
    return "".join(out)


def dispatch_script(items: list[dict[str, Any]], seq: int) -> str:
    """The script that hands one batch to the page; it evaluates to ``seq`` when the page took
    it, to something else when it did not (``-1``: no page, or the page failed to apply it)."""
    return DISPATCH % (ascii_json(items), seq)
