"""Why a tray menu action failed, in the menu's language (its notification's body).

A coded failure (a tool error, an undo refusal) says its code's text; the undo journal's coded
reason and a coded store problem (settings that cannot be saved) say their own; any other error
says a sentence for its class (``errors.ERROR_CODES``, the catalogue's ``tray.error.<code>``)
with the app's English words quoted after it, as the page does for an unknown error. In English
the app's own sentence is said as it is.
"""

from __future__ import annotations

from tray_app.base.errors import StoreError, error_code
from tray_app.history_warnings import problem_of, problem_text
from tray_app.i18n import lookup, t, translation, written_out
from tray_app.terminal_errors import coded_text
from tray_app.tool_errors import CodedError
from tray_app.undo_reasons import reason_text

#: A notification's body stays short; the log has the whole message.
MAX_DETAIL = 300


def failure_detail(exc: BaseException, language: str) -> str:
    """``exc`` for a notification in ``language`` (English: the app's own sentence)."""
    raw = str(exc) or type(exc).__name__
    if len(raw) > MAX_DETAIL:
        raw = raw[: MAX_DETAIL - 1] + "…"
    if isinstance(exc, CodedError):
        return coded_text(exc, language)
    if translation("tray.error.internal", language) is None:  # the app's own words suffice
        return written_out(raw)
    problem = problem_of(exc) if isinstance(exc, StoreError) else None
    if problem is not None:  # a settings file that cannot be written, said whole
        return problem_text(problem, language, written_out)
    info = exc.reason_info if isinstance(exc, StoreError) else None
    if info:
        said = reason_text(info.get("code"), info.get("params"), "", language, written_out)
        if said:
            return t(
                "tray.error_reason",
                language,
                cause=t("tray.error.store_error", language),
                reason=said,
            )
    cause = lookup(f"tray.error.{error_code(exc)}", language) or t("tray.error.internal", language)
    return t("tray.error_quoted", language, cause=cause, detail=written_out(raw))
