"""Why a tray menu action failed, in the menu's language (its notification's body).

A coded failure (a tool error, an undo refusal) says its code's text; the undo journal's coded
reason and a coded store problem (settings that cannot be saved) say their own; any other error
says a sentence for its class (``errors.ERROR_CODES``) in Chinese with the app's English words
quoted after it, as the page does for an unknown error.
"""

from __future__ import annotations

from tray_app.errors import StoreError, error_code
from tray_app.history_warnings import problem_of, problem_text
from tray_app.i18n import written_out
from tray_app.terminal_errors import coded_text
from tray_app.tool_errors import CodedError
from tray_app.undo_reasons import reason_text

#: A failure's class, said in Chinese (web/locales' ``command_error.<code>`` without the detail).
ERROR_ZH: dict[str, str] = {
    "error": "应用拒绝了此操作",
    "config_error": "设置无法使用",
    "provider_error": "模型服务器返回了错误",
    "provider_unavailable": "无法连接模型服务器",
    "model_not_found": "该模型尚未安装",
    "capability": "该模型不支持此操作",
    "server_busy": "模型服务器繁忙",
    "stream_error": "模型服务器的回答中断了",
    "sandbox_violation": "文件夹规则不允许",
    "undo_unavailable": "无法保留撤销副本",
    "undo_failed": "无法撤销",
    "store_error": "无法读取或保存对话历史",
    "export_failed": "无法将对话保存到该位置",
    "invalid_request": "无法按要求执行",
    "invalid_settings": "设置未保存",
    "not_found": "未找到（已删除或已处理）",
    "busy": "此对话仍在回答中，请先停止",
    "unsupported": "此处不可用",
    "timeout": "应用未能及时响应",
    "internal": "应用内部出错",
}

#: A notification's body stays short; the log has the whole message.
MAX_DETAIL = 300


def failure_detail(exc: BaseException, language: str) -> str:
    """``exc`` for a notification in ``language`` (English: the app's own sentence)."""
    raw = str(exc) or type(exc).__name__
    if len(raw) > MAX_DETAIL:
        raw = raw[: MAX_DETAIL - 1] + "…"
    if isinstance(exc, CodedError):
        return coded_text(exc, language)
    if not language.lower().startswith("zh"):
        return written_out(raw)
    problem = problem_of(exc) if isinstance(exc, StoreError) else None
    if problem is not None:  # a settings file that cannot be written, said whole
        return problem_text(problem, language, written_out)
    info = exc.reason_info if isinstance(exc, StoreError) else None
    if info:
        said = reason_text(info.get("code"), info.get("params"), "", language, written_out)
        if said:
            return f"{ERROR_ZH['store_error']}：{said}"
    return f"{ERROR_ZH.get(error_code(exc), ERROR_ZH['internal'])}（“{written_out(raw)}”）"
