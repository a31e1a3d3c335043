"""Why the chat history is off or read-only, as codes the page and the terminal say in the
user's language.

The store's failures stay English sentences (``str``: logs, ``--json``, older callers) that also
carry a code and its params: a ``StoreProblem`` is why the database cannot be used (the first
argument of the ``StoreError`` that ``store/db.py`` raises), a ``HistoryWarning`` what that
means for this run (history off, read-only, the app's folders not writable) with the problem
inside. ``web/locales`` hold ``history_warning.<code>`` and ``store_problem.<code>``, which the
page and the terminal both read (one copy). An OS error inside says why by its errno
(``os_reasons``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

from tray_app.i18n import language_of
from tray_app.os_reasons import os_reason_text
from tray_app.tool_errors import Params, clean_params
from tray_app.web_files import locale_texts

StoreProblemCode = Literal[
    "locked",
    "damaged",
    "newer",
    "disk_full",
    "read_only",
    "cannot_open",
    "folder_not_writable",
    "no_folder",
    "no_history",
    "failed",
    "settings_not_saved",
    "not_saved",
]
HistoryWarningCode = Literal["history_off", "history_read_only", "folders_unwritable"]
#: Every text key the page and the terminal need (tests/i18n/test_history_warnings.py checks both
#: locales hold each with the same placeholders).
TEXT_KEYS: frozenset[str] = frozenset(
    [f"history_warning.{code}" for code in get_args(HistoryWarningCode)]
    + [f"store_problem.{code}" for code in get_args(StoreProblemCode)]
)


class StoreProblem(str):
    """An English sentence about the chat database with the code and params that say it in
    another language."""

    code: str
    params: Params

    def __new__(cls, text: str, code: StoreProblemCode, **params: object) -> StoreProblem:
        made = super().__new__(cls, text)
        made.code = code
        made.params = clean_params(params)
        return made


class HistoryWarning(str):
    """What a store problem means for this run, as a sentence with a code, params and the
    problem inside (``why``, None when the cause has no code)."""

    code: str
    params: Params
    why: StoreProblem | None

    def __new__(
        cls, text: str, code: HistoryWarningCode, why: object = None, **params: object
    ) -> HistoryWarning:
        made = super().__new__(cls, text)
        made.code = code
        made.params = clean_params(params)
        made.why = why if isinstance(why, StoreProblem) else None
        if made.why is None and why is not None:
            made.params.update(clean_params({"detail": str(why)}))
        return made


def problem_of(exc: BaseException) -> StoreProblem | None:
    """The coded problem a ``StoreError`` was raised with, if any."""
    first = exc.args[0] if exc.args else None
    return first if isinstance(first, StoreProblem) else None


def warning_info(warning: object) -> dict[str, object] | None:
    """``{"code", "params", "why": {"code", "params"} | None}`` of a ``HistoryWarning``, for the
    page (``status``); None for none or a plain sentence."""
    if not isinstance(warning, HistoryWarning):
        return None
    why = warning.why
    inner = {"code": why.code, "params": dict(why.params)} if why is not None else None
    return {"code": warning.code, "params": dict(warning.params), "why": inner}


def warning_text(warning: object, language: str, shown: Callable[[object], str] = str) -> str:
    """The warning in ``language``, from ``web/locales`` (``shown`` prepares each param: the
    terminal writes control characters out); a plain sentence, a code without a text or params
    that do not fit it give the English sentence as it is."""
    if not isinstance(warning, HistoryWarning):
        return shown(warning)
    texts = locale_texts(language_of(language))
    try:
        why = os_reason_text(warning.params, language, shown)  # an uncoded cause, quoted
        if warning.why is not None:
            inner = _values(warning.why.params, language, shown)
            why = texts[f"store_problem.{warning.why.code}"].format_map(inner)
        values = {**_values(warning.params, language, shown), "why": why}
        return texts[f"history_warning.{warning.code}"].format_map(values)
    except (KeyError, IndexError, ValueError):
        return shown(warning)


def problem_text(problem: StoreProblem, language: str, shown: Callable[[object], str] = str) -> str:
    """A store problem in ``language`` (``store_problem.<code>`` of ``web/locales``); its English
    sentence when the locale has no text for it or its params do not fit."""
    texts = locale_texts(language_of(language))
    try:
        return texts[f"store_problem.{problem.code}"].format_map(
            _values(problem.params, language, shown)
        )
    except (KeyError, IndexError, ValueError):
        return shown(problem)


def _values(params: Params, language: str, shown: Callable[[object], str]) -> dict[str, str]:
    values = {key: shown(value) for key, value in params.items()}
    if "detail" in params:  # an OS error by its errno in words; any other text quoted
        values["detail"] = os_reason_text(params, language, shown)
    return values
