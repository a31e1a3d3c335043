"""Why the chat history is off or read-only, as codes the page and the terminal say in the
user's language.

The store's failures stay English sentences (``str``: logs, ``--json``, older callers) that also
carry a code and its params: a ``StoreProblem`` is why the database cannot be used (the first
argument of the ``StoreError`` that ``store/db.py`` raises), a ``HistoryWarning`` what that
means for this run (history off, read-only, the app's folders not writable) with the problem
inside. ``web/locales`` hold ``history_warning.<code>`` and ``store_problem.<code>``;
``HISTORY_TEXT`` is the terminal's copy of them (``tests/test_history_warnings.py`` checks they
agree). An OS error inside says why by its errno (``os_reasons``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from tray_app.os_reasons import os_reason_text
from tray_app.tool_errors import Params, clean_params

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
]
HistoryWarningCode = Literal["history_off", "history_read_only", "folders_unwritable"]


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


#: The terminal's copy of ``web/locales``' ``history_warning.*`` and ``store_problem.*``.
HISTORY_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "history_warning.history_off": "History is off: {why}",
        "history_warning.history_read_only": "History is read-only: {why}",
        "history_warning.folders_unwritable": "The app's folders cannot be written ({detail}: "
        "{path}).",
        "store_problem.locked": "The chat history {path} is locked by another program (another "
        "Metona Tray, or a database tool?) and stayed locked past the wait time.",
        "store_problem.damaged": "The chat history {path} is damaged or is not a database "
        "({detail}). It was left as it is so it can be recovered.",
        "store_problem.newer": "The chat history {path} was written by a newer version of "
        "Metona Tray (schema {version}; this version knows up to {known}). It was left as it "
        "is; update the app to see it.",
        "store_problem.disk_full": "The chat history {path} cannot be written: the disk is full.",
        "store_problem.read_only": "The chat history {path} is on a read-only disk or folder.",
        "store_problem.cannot_open": "The chat history {path} cannot be opened ({detail}; check "
        "its permissions).",
        "store_problem.folder_not_writable": "Cannot save to the chat history {path}: its folder "
        "is read-only or not writable.",
        "store_problem.no_folder": "Cannot create the folder for the chat history {path} "
        "({detail}).",
        "store_problem.no_history": "There is no chat history yet at {path}.",
        "store_problem.failed": "The chat history {path} cannot be used ({detail}).",
    },
    "zh-CN": {
        "history_warning.history_off": "本次不保存聊天记录：{why}",
        "history_warning.history_read_only": "聊天记录只能读取，不会保存：{why}",
        "history_warning.folders_unwritable": "应用的文件夹无法写入：{path}（{detail}）。",
        "store_problem.locked": "聊天记录 {path} 被另一个程序锁定（另一个 Metona Tray，或数据库"
        "工具？），等待之后仍未解锁。",
        "store_problem.damaged": "聊天记录 {path} 已损坏或不是数据库（{detail}）。它保持原样，"
        "以便恢复。",
        "store_problem.newer": "聊天记录 {path} 由更新版本的 Metona Tray 写入（结构版本 "
        "{version}；此版本最高支持 {known}）。它保持原样；请更新应用后查看。",
        "store_problem.disk_full": "聊天记录 {path} 无法写入：磁盘空间不足。",
        "store_problem.read_only": "聊天记录 {path} 位于只读的磁盘或文件夹中。",
        "store_problem.cannot_open": "无法打开聊天记录 {path}（{detail}；请检查它的权限）。",
        "store_problem.folder_not_writable": "无法保存到聊天记录 {path}：它所在的文件夹是只读的"
        "或不可写。",
        "store_problem.no_folder": "无法为聊天记录 {path} 创建文件夹（{detail}）。",
        "store_problem.no_history": "{path} 还没有聊天记录。",
        "store_problem.failed": "无法使用聊天记录 {path}（{detail}）。",
    },
}


def warning_text(warning: object, language: str, shown: Callable[[object], str] = str) -> str:
    """The warning in ``language`` (``shown`` prepares each param: the terminal writes control
    characters out); a plain sentence, or one whose params do not fit, as it is."""
    if not isinstance(warning, HistoryWarning):
        return shown(warning)
    texts = HISTORY_TEXT["zh-CN" if language.lower().startswith("zh") else "en"]
    try:
        why = os_reason_text(warning.params, language, shown)  # an uncoded cause, quoted
        if warning.why is not None:
            inner = _values(warning.why.params, language, shown)
            why = texts[f"store_problem.{warning.why.code}"].format_map(inner)
        values = {**_values(warning.params, language, shown), "why": why}
        return texts[f"history_warning.{warning.code}"].format_map(values)
    except (KeyError, IndexError, ValueError):
        return shown(warning)


def _values(params: Params, language: str, shown: Callable[[object], str]) -> dict[str, str]:
    values = {key: shown(value) for key, value in params.items()}
    if "detail" in params:  # an OS error by its errno in words; any other text quoted
        values["detail"] = os_reason_text(params, language, shown)
    return values
