"""Text rendering of events for the terminal: the stream, tool cards and notices."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TextIO

from tray_app.core.turns import system_language
from tray_app.events import (
    ApprovalNeeded,
    ApprovalResolved,
    ContentDelta,
    Event,
    MessageFinished,
    MessageStarted,
    Notice,
    ThinkingDelta,
    ToolCallEvent,
    ToolCallUpdate,
    TurnFailed,
    TurnFinished,
)
from tray_app.messages import AnyPreview, CommandPreview, PersistenceRisk, read_preview
from tray_app.terminal_errors import (
    answer_for_terminal,
    failure_text,
    nearest_lines,
    written_out,
)
from tray_app.terminal_preview import approval_heading, preview_summary
from tray_app.terminal_words import (
    approval_resolved,
    arg_echo,
    count_line,
    status_word,
    terminal_text,
    tool_label,
    turn_failed,
)
from tray_app.undo_reasons import reason_text

STATUS_MARK = {
    "pending": "…",
    "running": "▶",
    "success": "✓",
    "error": "✗",
    "cancelled": "⊘",
}
KEY_ARGS = ("path", "source", "destination", "paths", "command", "query", "cwd", "recursive")
#: Notices whose text the terminal writes in its own language (the rest print ``message``,
#: which the loop already wrote in the turn's language).
NOTICE_TEXT = {
    "history_not_saved": {
        "en": "This chat could not be saved: {reason} Everything shown is kept in memory and "
        "saving is retried; export the chat to keep a copy (/export FILE).",
        "zh-CN": "此对话无法保存：{reason} 显示的内容都保留在内存中，并会重试保存；"
        "可导出对话保留副本（/export 文件）。",
    },
    "history_saved": {"en": "This chat is saved again.", "zh-CN": "此对话已重新保存。"},
    "history_summarized": {
        "en": "The {count} oldest messages were summarised to fit the model's context.",
        "zh-CN": "最早的 {count} 条消息已被总结，以适应模型的上下文。",
    },
    "nothing_changed": {
        "en": "No files were changed in this turn.",
        "zh-CN": "本轮没有更改任何文件。",
    },
}


def notice_text(event: Notice, language: str) -> str:
    texts = NOTICE_TEXT.get(event.code)
    if texts is None:
        return event.message
    try:
        return texts["zh-CN" if language.lower().startswith("zh") else "en"].format(**event.args)
    except (KeyError, IndexError, ValueError):
        return event.message


def key_args(args: dict[str, Any], language: str = "en") -> str:
    """The arguments worth a glance, each cut to 80 characters, a model's control or direction
    characters written out and line breaks shown as ⏎ (the echo stays one line); in Chinese the
    keys in words (``路径：…``)."""
    parts = []
    for key in KEY_ARGS:
        if key in args:
            parts.append(arg_echo(key, args[key], language))
    return " ".join(parts)


#: A change made without an undo copy (the user allowed it in the settings) says so.
UNDO_UNAVAILABLE = {"en": "undo is not available", "zh-CN": "无法撤销"}


def undo_note(result: dict[str, Any], language: str = "en") -> str:
    if result.get("undo") != "unavailable":
        return ""
    label = UNDO_UNAVAILABLE["zh-CN" if language.lower().startswith("zh") else "en"]
    why = str(result.get("undoNote") or "").removeprefix(UNDO_UNAVAILABLE["en"]).lstrip(": ")
    coded = result.get("card_undo_reason")
    if isinstance(coded, dict):
        why = reason_text(coded.get("code"), coded.get("params"), why, language, written_out)
    if language.lower().startswith("zh"):
        return f"（{label}：{why}）" if why else f"（{label}）"
    return f" ({label}: {why})" if why else f" ({label})"


#: A successful call's summary words in the terminal's language.
RESULT_TEXT = {
    "en": {
        "moved": "moved to {destination}",
        "applied": "applied {n} edit(s)",
        "would_apply": "would apply {n} edit(s)",
        "lines": "lines {first}-{last} of {total}; next from line {next}",
        "json_content": " (the content came as JSON data: written as formatted JSON text)",
    },
    "zh-CN": {
        "moved": "已移动到 {destination}",
        "applied": "已应用 {n} 处修改",
        "would_apply": "将应用 {n} 处修改",
        "lines": "第 {first}-{last} 行，共 {total} 行；下次从第 {next} 行开始",
        "json_content": "（内容是 JSON 数据：已按格式化的 JSON 文本写入）",
    },
}


def result_summary(result: dict[str, Any] | None, language: str = "en") -> str:
    if not result:
        return ""
    if not result.get("success"):
        return failure_text(result, language) + nearest_lines(result, language)
    words = RESULT_TEXT["zh-CN" if language.lower().startswith("zh") else "en"]
    note = undo_note(result, language)
    if result.get("json_content"):
        note += words["json_content"]
    if result.get("destination"):
        return words["moved"].format(destination=written_out(result["destination"])) + note
    if isinstance(result.get("edits"), list):
        verb = words["would_apply" if result.get("dry_run") else "applied"]
        diff = str(result.get("diff") or "")
        shown = [line for line in diff.splitlines()[2:] if line.startswith(("+", "-"))][:6]
        edits = verb.format(n=len(result["edits"])) + note
        return edits + "".join(f"\n    {x}" for x in shown)
    if "server" in result and isinstance(result.get("content"), str):  # an MCP tool's answer
        first = " ".join(result["content"].split())
        return (first[:117] + "...") if len(first) > 120 else (first or "ok")
    line_range, total = result.get("line_range"), result.get("lines")
    if result.get("next_start_line") and isinstance(line_range, list) and len(line_range) == 2:
        # What the model received of a long file, as the model was told.
        first, last, going_on = line_range[0], line_range[1], result["next_start_line"]
        return words["lines"].format(first=first, last=last, total=total, next=going_on)
    if "total_matches" in result and ("offset" in result or "next_offset" in result):
        return search_page(result, language)
    return count_line(result, note, language)


SEARCH_PAGE = {
    "en": {
        "range": "matches {a}-{b}",
        "of": " of {k}",
        "none": "no matches after {n}",
        "next": "; next from offset {n}",
    },
    "zh-CN": {
        "range": "第 {a}-{b} 处匹配",
        "of": "（共 {k} 处）",
        "none": "第 {n} 处之后没有匹配",
        "next": "；下一页从 offset {n} 开始",
    },
}


def search_page(result: dict[str, Any], language: str = "en") -> str:
    """A page of a longer search, as the model was told: which matches, of how many when the
    search saw them all, and where the next page starts."""
    words = SEARCH_PAGE["zh-CN" if language.lower().startswith("zh") else "en"]
    offset = int(result.get("offset") or 0)
    results = result.get("results")
    files = results if isinstance(results, list) else []
    shown = sum(len(r.get("matches") or []) for r in files if isinstance(r, dict))
    if not shown:
        text = words["none"].format(n=offset)
    else:
        text = words["range"].format(a=offset + 1, b=offset + shown)
        if not result.get("truncated"):
            text += words["of"].format(k=offset + int(result.get("total_matches") or shown))
    if result.get("next_offset") is not None:
        text += words["next"].format(n=result["next_offset"])
    return text


#: The warning for a file that makes something run later, by ``preview["persistence"]["code"]``.
PERSISTENCE_TEXT = {
    "en": {
        "login": "runs at login",
        "shell": "runs in every new terminal shell",
        "vscode": "runs when the folder is opened in VS Code",
        "git_hook": "runs on git commands in this repository",
        "": "makes programs run later",
        "line": "WARNING: {path} {risk}: whatever is written there runs without asking",
    },
    "zh-CN": {
        "login": "会在登录时自动运行",
        "shell": "会在每个新终端中运行",
        "vscode": "会在 VS Code 打开该文件夹时运行",
        "git_hook": "会在本仓库执行 git 命令时运行",
        "": "会让程序稍后自动运行",
        "line": "警告：{path} {risk}：写入其中的内容会不经询问直接运行",
    },
}


#: Why a call asks although the mode or a grant would not (the per-turn guards).
GUARD_TEXT = {
    "en": {
        "files_removed": "over this answer's budget for removed files ({used} of {limit}; "
        "this call removes {call})",
        "bytes_written": "over this answer's budget for written data ({used} of {limit} bytes; "
        "this call writes {call})",
        "commands": "over this answer's budget for commands ({used} of {limit} run)",
        "changed": "the file changed after you approved it; nothing was written. New diff:",
    },
    "zh-CN": {
        "files_removed": "超出本次回答删除文件的额度（{used}/{limit}；此操作删除 {call} 个）",
        "bytes_written": "超出本次回答写入数据的额度（{used}/{limit} 字节；此操作写入 {call}）",
        "commands": "超出本次回答运行命令的额度（已运行 {used}/{limit} 个）",
        "changed": "文件在你允许后已变化，未写入任何内容。新的差异：",
    },
}


def guard_lines(preview: Mapping[str, Any] | AnyPreview, language: str) -> list[str]:
    texts = GUARD_TEXT["zh-CN" if language.lower().startswith("zh") else "en"]
    shown = read_preview(preview)
    lines = []
    if shown.changed_since_shown:
        lines.append(texts["changed"])
    budget = shown.budget
    if budget is not None:
        fields = {"used": budget.used, "limit": budget.limit, "call": budget.call}
        lines.append(texts[budget.name].format(**fields))
    return lines


def persistence_line(warning: PersistenceRisk, language: str) -> str:
    texts = PERSISTENCE_TEXT["zh-CN" if language.lower().startswith("zh") else "en"]
    risk = texts.get(warning.code, texts[""])
    return texts["line"].format(path=warning.path, risk=risk)


def approval_text(event: ApprovalNeeded, language: str = "en") -> str:
    shown = read_preview(event.preview)
    heading = approval_heading(event.name, event.risk, language)
    lines = [f"\n── {heading} {key_args(event.arguments, language)}"]
    summary = preview_summary(shown, language)
    if summary:
        lines.append(f"   {summary}")
    if shown.persistence is not None:
        lines.append("   ⚠ " + persistence_line(shown.persistence, language))
    lines.extend("   ⚠ " + line for line in guard_lines(shown, language))
    if isinstance(shown, CommandPreview) and shown.blocked and language.lower().startswith("zh"):
        refusal = {"code": shown.blocked_code, "params": shown.blocked_params}
        lines.append("   ⛔ " + failure_text({**refusal, "error": shown.blocked}, language))
    text = shown.text
    if text:
        shown_lines = text.splitlines()[:40]
        # what the user decides on: a command's bidi or control characters written out
        lines.extend("   " + written_out(line) for line in shown_lines)
        if len(text.splitlines()) > 40:
            lines.append("   …")
    return "\n".join(lines) + "\n"


class TextRenderer:
    def __init__(self, out: TextIO, err: TextIO, *, language: str | None = None) -> None:
        self.out = out
        self.err = err
        self.language = system_language() if language is None else language
        self.color = bool(getattr(err, "isatty", lambda: False)()) and not os.environ.get(
            "NO_COLOR"
        )
        self._in_thinking = False
        self._names: dict[str, str] = {}
        self._out_tty = bool(getattr(out, "isatty", lambda: False)())

    def _dim(self, text: str) -> str:
        return f"\033[2m{text}\033[0m" if self.color else text

    def render(self, event: Event) -> None:
        if isinstance(event, ThinkingDelta):
            if not self._in_thinking:
                self.err.write(self._dim("thinking: "))
                self._in_thinking = True
            self.err.write(self._dim(answer_for_terminal(event.text)))
            self.err.flush()
        elif isinstance(event, ContentDelta):
            self._end_thinking()
            # A terminal gets the answer with its escapes and bidi controls written out; a pipe
            # or file gets it byte for byte (what scripts read).
            self.out.write(answer_for_terminal(event.text) if self._out_tty else event.text)
            self.out.flush()
        elif isinstance(event, MessageStarted):
            self._in_thinking = False
        elif isinstance(event, MessageFinished):
            self._end_thinking()
            if event.stopped:
                self.err.write(self._dim(f"\n{terminal_text(self.language, 'stopped')}\n"))
        elif isinstance(event, ToolCallEvent):
            self._end_thinking()
            call = event.call
            self._names[call.call_id] = written_out(call.name)
            label = tool_label(self.language)
            echo = key_args(call.arguments, self.language)
            self.err.write(f"\n{label} {written_out(call.name)} {echo}".rstrip() + "\n")
        elif isinstance(event, ToolCallUpdate):
            if event.status == "running" and event.progress:
                name = self._names.get(event.call_id, "tool")
                done, total = event.progress.get("done"), event.progress.get("total")
                step = f"{done:g}/{total:g}" if total else f"{done:g}"
                note = f" {event.progress['message']}" if event.progress.get("message") else ""
                note = written_out(note)
                self.err.write(self._dim(f"{tool_label(self.language)} … {name} {step}{note}\n"))
            elif event.status in ("success", "error", "cancelled"):
                name = self._names.get(event.call_id, "tool")
                mark = STATUS_MARK[event.status]
                timing = f" ({event.duration_ms:.0f} ms)" if event.duration_ms else ""
                summary = result_summary(event.result, self.language)
                status = status_word(event.status, self.language)
                label = tool_label(self.language)
                self.err.write(f"{label} {mark} {name} {status}{timing} {summary}\n")
        elif isinstance(event, ApprovalResolved):
            said = approval_resolved(event.decision, event.by, self.language)
            self.err.write(f"{said}\n")
        elif isinstance(event, Notice) and event.code in ("nothing_changed", "history_summarized"):
            self._end_thinking()  # a quiet fact under the answer, not a warning
            self.err.write(self._dim(f"\n({notice_text(event, self.language)})\n"))
        elif isinstance(event, Notice) and event.code == "waiting_for_model":
            self._end_thinking()  # a passing state, not a warning: one dim line
            self.err.write(self._dim(f"\n… {event.message}\n"))
        elif isinstance(event, Notice):
            self.err.write(f"\n[{event.level}] {notice_text(event, self.language)}\n")
        elif isinstance(event, TurnFailed):
            self._end_thinking()
            self.err.write(f"\n{turn_failed(event.code, event.message, self.language)}\n")
        elif isinstance(event, TurnFinished):
            self._end_thinking()
            self.out.write("\n")
            self.out.flush()
        self.err.flush()

    def _end_thinking(self) -> None:
        if self._in_thinking:
            self.err.write("\n")
            self._in_thinking = False
