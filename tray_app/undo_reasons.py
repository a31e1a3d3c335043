"""Why a change cannot be undone, as a code the page, the terminal and the tray can say in the
user's language.

A ``Reason`` is the English sentence (a ``str``: the model, the logs and ``--json`` keep it) that
also carries a ``code`` and its ``params``. The journal stores the code beside the sentence
(``journal_index``); an entry written before codes existed has only the sentence, which is then
shown as it is. ``web/locales/*.json`` hold ``undo_reason.<code>``; the terminal and the tray
read their words from there too (``reason_template``), so they are written once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, cast, get_args

from tray_app.i18n import translation
from tray_app.os_reasons import os_reason_text
from tray_app.tool_errors import Params, clean_params

UndoReasonCode = Literal[
    "journal_full",
    "journal_read_only",
    "journal_locked",
    "journal_no_permission",
    "journal_not_writable",
    "journal_file_in_the_way",
    "journal_unusable",
    "journal_lost_track",
    "journal_failed_after_change",
    "copy_too_many",
    "copy_too_large",
    "copy_unreadable",
    "copy_dropped",
    "after_unreadable",
    "nothing_changed",
    "change_unsupported",
]

UNDO_REASON_CODES: frozenset[str] = frozenset(get_args(UndoReasonCode))


class Reason(str):
    """An English sentence with the code and params that say it in another language."""

    code: str
    params: Params

    def __new__(cls, text: str, code: UndoReasonCode, **params: object) -> Reason:
        made = super().__new__(cls, text)
        made.code = code
        made.params = clean_params(params)
        return made

    def reworded(self, text: str) -> Reason:
        """The same reason under a longer English sentence (the code still says it all)."""
        return Reason(text, cast(UndoReasonCode, self.code), **self.params)


def code_of(text: object) -> dict[str, object] | None:
    """``{"code", "params"}`` of a ``Reason`` (None for a plain sentence), for JSON."""
    if isinstance(text, Reason):
        return {"code": text.code, "params": dict(text.params)}
    return None


def flat(why: str, key: str = "reason") -> dict[str, object]:
    """A reason as a coded error's flat params: ``reason`` (the sentence), ``reason_code`` and
    ``reason_<name>`` for each of its params, so the page and the terminal can translate it."""
    out: dict[str, object] = {key: str(why)}
    if isinstance(why, Reason):
        out[f"{key}_code"] = why.code
        out.update({f"{key}_{name}": value for name, value in why.params.items()})
    return out


def unflat(params: Mapping[str, object], key: str = "reason") -> tuple[str, dict[str, object]]:
    """``flat`` undone: the reason's code ("" when none) and its own params."""
    code = params.get(f"{key}_code")
    if not isinstance(code, str) or code not in UNDO_REASON_CODES:
        return "", {}
    lead = f"{key}_"
    inner = {k[len(lead) :]: v for k, v in params.items() if k.startswith(lead)}
    inner.pop("code", None)
    return code, inner


def from_stored(text: str | None, info: Mapping[str, object] | None) -> str | None:
    """The stored sentence, as a ``Reason`` again when its code was stored beside it."""
    if text is None or not isinstance(info, Mapping):
        return text
    code, params = info.get("code"), info.get("params")
    if code not in UNDO_REASON_CODES or not isinstance(params, Mapping):
        return text
    return Reason(text, cast(UndoReasonCode, code), **{str(k): v for k, v in params.items()})


def reason_template(code: object, language: str) -> str | None:
    """A reason code's template in ``language``: the page's own ``undo_reason.<code>``, the one
    copy the page, the terminal and the tray all say; None in the source language (the stored
    English sentence says it) and for an unknown code."""
    if code not in UNDO_REASON_CODES:
        return None
    return translation(f"undo_reason.{code}", language)


def reason_text(
    code: object,
    params: object,
    english: str,
    language: str,
    shown: Callable[[object], str] = str,
) -> str:
    """The reason in ``language``: its code's text (the page's, from ``web/locales``), else
    the English sentence as stored. ``shown`` prepares each parameter (the terminal writes
    control characters out)."""
    if not isinstance(params, Mapping):
        return english
    template = reason_template(code, language)
    if template is None:
        return english
    values = {str(k): shown(v) for k, v in params.items()}
    if "detail" in params:  # an OS error's reason in words by its errno, else quoted
        values["detail"] = os_reason_text(params, language, shown)
    try:
        return template.format_map(values)
    except (KeyError, IndexError, ValueError):
        return english
