"""A failed tool call's reason as the terminal prints it, in its language.

In English the tool's own sentence is printed (what the model got); in another language the
catalogue's ``tool_error.<code>`` (the page's own text) with its ``params``. Every value
that came from a file name, a server or a model has its control, invisible and direction
characters written out (``⟨U+202E⟩``), so it cannot rewrite the terminal or reorder the line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tray_app.i18n import fill, t, translation, written_out
from tray_app.undo_reasons import reason_text, unflat

_UNITS = ("B", "KB", "MB", "GB", "TB")


#: What a model's answer may not send to a terminal: C0 and C1 controls but line ends and tabs
#: (ESC starts sequences that move the cursor, retitle the window or write the clipboard; CR
#: overwrites a line) and bidi overrides, embeddings and isolates (they reverse what follows).
_UNSAFE_IN_ANSWER = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def answer_for_terminal(text: str) -> str:
    """A model's answer or thinking as a terminal may show it: those characters written out as
    ``⟨U+001B⟩``, everything else (line ends, tabs, any script, emoji) kept."""
    plain = text.replace("\r\n", "\n")  # a Windows line end is a line end, not an overwrite
    return _UNSAFE_IN_ANSWER.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", plain)


def _size(value: float) -> str:
    for unit in _UNITS:
        if value < 1024 or unit == _UNITS[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _params(raw: object, language: str) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, str] = {}
    for key, value in raw.items():
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        out[str(key)] = _size(value) if number and str(key).endswith("size") else written_out(value)
    code, inner = unflat(raw)
    if code and "reason" in out:  # the journal's reason, by its own code (undo_reasons)
        out["reason"] = reason_text(code, inner, out["reason"], language, written_out)
    return out


def failure_text(result: Mapping[str, Any], language: str = "en") -> str:
    """A failed call's reason in the terminal's language (an unknown code: the sentence)."""
    template = translation(f"tool_error.{result.get('code')}", language)
    if template is not None:
        try:
            return fill(template, _params(result.get("params"), language), strict=True)
        except KeyError:
            pass  # parameters that do not fit (an older record): the tool's own sentence
    return written_out(result.get("error", "failed"), keep_line_breaks=True)


def coded_text(exc: BaseException, language: str = "en") -> str:
    """A raised ``CodedError``'s reason in ``language`` (another error: its sentence)."""
    code = getattr(exc, "code", None)
    coded = {"error": str(exc) or "failed", "code": code, "params": getattr(exc, "params", None)}
    return failure_text(coded, language)


def undo_failure_text(exc: BaseException, language: str = "en") -> str:
    """Why an undo the user asked for was not done (Core's coded ``UndoFailed`` or
    ``ChangeNotFound``): the English sentence, or in another language its code's text after
    ``terminal.undo_failed``'s words."""
    text = coded_text(exc, language)
    if translation(f"tool_error.{getattr(exc, 'code', None)}", language) is not None:
        return t("terminal.undo_failed", language, text=text)
    return text


#: The file's nearest lines under a failed edit's translated sentence: as many as fit a glance.
NEAREST_SHOWN = 12


def nearest_lines(result: Mapping[str, Any], language: str = "en") -> str:
    """A failed edit's nearest lines (``params.nearest``), indented under its translated sentence,
    as the card shows them; the English sentence already holds them. Bounded, controls written
    out."""
    params = result.get("params")
    nearest = params.get("nearest") if isinstance(params, Mapping) else None
    translated = translation(f"tool_error.{result.get('code')}", language) is not None
    if not translated or not isinstance(nearest, str) or not nearest:
        return ""
    lines = nearest.splitlines()
    shown = [f"\n    {written_out(line)}" for line in lines[:NEAREST_SHOWN]]
    if len(lines) > NEAREST_SHOWN:
        shown.append("\n    …")
    return "".join(shown)
