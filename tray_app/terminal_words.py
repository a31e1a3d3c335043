"""The terminal's short lines in its language: an approval's outcome, a call denied for want of
a terminal to ask, a tool's status word and a result's counts (``bytesWritten=…``). English
keeps the words scripts may already read; Chinese says them in words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tray_app.terminal_errors import written_out


def chinese(language: str) -> bool:
    return language.lower().startswith("zh")


DECISION_ZH = {
    "approved": "已批准",
    "denied": "已拒绝",
    "timeout": "超时未答（视为拒绝）",
    "cancelled": "已取消",
}
DECIDED_BY_ZH = {
    "popup": "对话窗口",
    "notification": "通知",
    "tray": "托盘",
    "terminal": "终端",
    "rule": "规则",
    "mcp_flag": "MCP 启动参数",
    "timeout": "超时",
    "abort": "已停止",
}


def approval_resolved(decision: str, by: str, language: str) -> str:
    """``[approval] approved (terminal)``, or in Chinese ``[确认] 已批准（终端）``."""
    if not chinese(language):
        return f"[approval] {decision} ({by})"
    return f"[确认] {DECISION_ZH.get(decision, decision)}（{DECIDED_BY_ZH.get(by, by)}）"


#: The terminal's own lines: a call denied when no terminal can ask (stdin is not one), the
#: chat's banner, exports, a missing chat.
TERMINAL_TEXT = {
    "en": {
        "line": "denied {name}: no terminal to ask for approval ({why})",
        "persistent": "it {risk}, so it is always asked",
        "guarded": "{lines}; so it is asked whatever the flags",
        "flags": "use --yes for writes or --yes-all for everything",
        "gone": "that question is no longer waiting (timed out or stopped)",
        "stopping": "stopping…",
        "stopped": "[stopped]",
        "banner": "Metona Tray chat. Ctrl+C stops an answer; Ctrl+D or /exit quits; /new starts"
        " over;\n/export FILE saves this chat as Markdown (or JSON for FILE.json).",
        "exported": "exported to {path}",
        "cannot_write": "cannot write {path}: {why}",
        "no_chat": "no stored chat '{name}'",
        "no_continue": "history is off (see above), so the stored chat '{name}' cannot be"
        " continued",
        "warning": "warning: {text}",
        "untitled": "(untitled)",
        "not_whole": "must be a whole number between {low} and {high}, not \u201c{value}\u201d",
        "out_of_range": "must be between {low} and {high}, not {value}",
        "not_folder": "--workspace {path}: not a folder",
        "bad_endpoint": "the endpoint must start with http:// or https://, not \u201c{value}\u201d",
        "bad_option": "not accepted ({why})",
        "no_data": "cannot open the app's data: {why}",
        "no_journal": "cannot read the undo journal: {why}",
        "unsaved": "warning: this chat could not be saved (see above), so it ends with this"
        " command; its answers are printed above.",
    },
    "zh-CN": {
        "line": "已拒绝 {name}：没有可以询问的终端（{why}）",
        "persistent": "它{risk}，因此总是需要询问",
        "guarded": "{lines}；因此无论参数如何都需要询问",
        "flags": "写入请加 --yes，全部批准请加 --yes-all",
        "gone": "该确认已不再等待（已超时或已停止）",
        "stopping": "正在停止…",
        "stopped": "[已停止]",
        "banner": "Metona Tray 对话。Ctrl+C 停止回答；Ctrl+D 或 /exit 退出；/new 重新开始；\n"
        "/export 文件 把对话保存为 Markdown（文件名以 .json 结尾时保存为 JSON）。",
        "exported": "已导出到 {path}",
        "cannot_write": "无法写入 {path}（{why}）",
        "no_chat": "没有保存的对话“{name}”",
        "no_continue": "历史记录已关闭（见上文），因此无法继续保存的对话“{name}”",
        "warning": "警告：{text}",
        "untitled": "（无标题）",
        "not_whole": "必须是 {low} 到 {high} 之间的整数，而不是“{value}”",
        "out_of_range": "必须在 {low} 到 {high} 之间，而不是 {value}",
        "not_folder": "--workspace {path}：不是文件夹",
        "bad_endpoint": "服务地址必须以 http:// 或 https:// 开头，而不是“{value}”",
        "bad_option": "取值无效（“{why}”）",
        "no_data": "无法打开应用的数据（“{why}”）",
        "no_journal": "无法读取撤销日志（“{why}”）",
        "unsaved": "警告：此对话无法保存（见上文），因此随本命令结束；回答已在上方打印。",
    },
}


def tool_label(language: str) -> str:
    """The tag of a tool call's lines; scripts reading English output keep ``[tool]``."""
    return "[工具]" if chinese(language) else "[tool]"


#: The arguments a call's line echoes, named in Chinese (English keeps ``key=value``).
ARG_ZH = {
    "path": "路径",
    "source": "源",
    "destination": "目标",
    "paths": "路径",
    "command": "命令",
    "query": "查询",
    "cwd": "工作目录",
    "recursive": "递归",
}
ECHO_CHARS = 80


def arg_echo(key: str, value: object, language: str) -> str:
    """One argument as the terminal echoes it: a list joined with commas, a yes/no in words,
    cut to ``ECHO_CHARS`` (a model may send megabytes), its hidden characters written out and
    its line breaks shown as ⏎ so the echo stays on its line."""
    zh = chinese(language)
    if isinstance(value, bool):
        text = ("是" if value else "否") if zh else str(value).lower()
    elif isinstance(value, list | tuple):
        text = ", ".join(str(item)[: ECHO_CHARS + 1] for item in value[:ECHO_CHARS])
    else:
        text = str(value)
    if len(text) > ECHO_CHARS:
        text = text[: ECHO_CHARS - 1] + "…"
    shown = written_out(text.replace("\n", "⏎"))
    return f"{ARG_ZH.get(key, key)}：{shown}" if zh else f"{key}={shown}"


def terminal_text(language: str, key: str, **fields: object) -> str:
    return TERMINAL_TEXT["zh-CN" if chinese(language) else "en"][key].format(**fields)


STATUS_ZH = {"success": "成功", "error": "失败", "cancelled": "已取消"}


def status_word(status: str, language: str) -> str:
    return STATUS_ZH.get(status, status) if chinese(language) else status


#: A result's count, by its key: English ``key=value``, Chinese in words.
COUNT_ZH = {
    "bytesWritten": "已写入 {v} 字节",
    "total": "共 {v} 项",
    "total_matches": "共 {v} 处匹配",
    "exitCode": "退出码 {v}",
    "lines": "共 {v} 行",
    "read": "已读取 {v} 个文件",
}
OMITTED_ZH = {
    "entries_omitted": "省略了 {v} 项",
    "results_omitted": "省略了 {v} 个文件",
    "matches_omitted": "省略了 {v} 处匹配",
}


def count_line(result: Mapping[str, Any], note: str, language: str) -> str:
    """The first count a result has, with what it left out; ``ok`` (完成) when none."""
    for key in COUNT_ZH:
        if key not in result:
            continue
        omitted = {k: v for k, v in result.items() if k.endswith("_omitted")}
        if not chinese(language):
            parts = [f"{k}={v}" for k, v in omitted.items()]
            return f"{key}={result[key]}{note}" + (f" ({', '.join(parts)})" if parts else "")
        said = [OMITTED_ZH.get(k, k + " {v}").format(v=v) for k, v in omitted.items() if v]
        extra = f"（{'，'.join(said)}）" if said else ""
        return COUNT_ZH[key].format(v=result[key]) + note + extra
    return ("完成" if chinese(language) else "ok") + note


#: A failed answer's cause in Chinese (web/locales' ``error.<code>``); the app's words follow.
TURN_FAILED_ZH = {
    "provider_unavailable": "无法连接模型服务",
    "model_not_found": "未安装该模型",
    "no_models": "还没有安装模型，请先下载一个",
    "capability": "模型无法完成这项请求",
    "stream_error": "回答中断了",
    "provider_error": "模型服务返回了错误",
    "store_error": "聊天记录无法保存",
    "internal": "应用内部出错了",
}


def turn_failed(code: str, message: str, language: str) -> str:
    """``error: <message>``; in Chinese the cause by its code, the app's words quoted."""
    if not chinese(language):
        return f"error: {message}"
    cause = TURN_FAILED_ZH.get(code, TURN_FAILED_ZH["internal"])
    return f"错误：{cause}（“{written_out(message)}”）" if message else f"错误：{cause}"
