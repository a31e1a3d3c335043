"""Untrusted text with its hidden characters shown, so it cannot rewrite or reorder a line."""

from __future__ import annotations

import unicodedata

_ZWJ = "\u200d"


def written_out(value: object, *, keep_line_breaks: bool = False) -> str:
    """``value`` as text with control, format, separator and surrogate characters (bidi
    overrides, zero-width spaces, ESC) written out as ``⟨U+XXXX⟩``; any other character of
    any script is kept, and a zero-width joiner inside an emoji sequence too. A line break is
    written out as well (``⟨U+000A⟩``): a name printed in a row or an echo must stay on its
    line; only text meant to span lines (a tool's sentence with its nearest lines) keeps it."""
    text = str(value)
    out: list[str] = []
    for index, char in enumerate(text):
        kept = keep_line_breaks and char == "\n"
        hidden = unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs") and not kept
        if hidden and not (char == _ZWJ and _joins_emoji(text, index)):
            out.append(f"⟨U+{ord(char):04X}⟩")
        else:
            out.append(char)
    return "".join(out)


def _joins_emoji(text: str, index: int) -> bool:
    before = text[index - 1] if index else ""
    if before == "\ufe0f" or "\U0001f3fb" <= before <= "\U0001f3ff":
        before = text[index - 2] if index > 1 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    return bool(before and after) and all(unicodedata.category(c) == "So" for c in (before, after))
