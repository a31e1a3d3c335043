"""Text rendering of events for the terminal: the stream, tool cards and notices."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TextIO

from tray_app.base.events import (
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
    TurnStarted,
)
from tray_app.base.messages import AnyPreview, CommandPreview, PersistenceRisk, read_preview
from tray_app.cli.terminal_lines import (
    approval_resolved,
    arg_echo,
    count_line,
    status_word,
    terminal_text,
    tool_label,
    turn_failed,
)
from tray_app.cli.terminal_preview import approval_heading, preview_summary
from tray_app.i18n import fill, lookup, section, system_language, t, translation, written_out
from tray_app.terminal_errors import (
    answer_for_terminal,
    failure_text,
    nearest_lines,
)
from tray_app.undo_reasons import reason_text

STATUS_MARK = {
    "pending": "…",
    "running": "▶",
    "success": "✓",
    "error": "✗",
    "cancelled": "⊘",
}
KEY_ARGS = (
    "path",
    "source",
    "destination",
    "paths",
    "command",
    "query",
    "cwd",
    "recursive",
    "message",
    "files",
    "file",
    "staged",
)


def notice_text(event: Notice, language: str) -> str:
    """A notice the terminal says in its own language (``terminal.notice.<code>``); any other
    prints ``message``, which the loop already wrote in the turn's language."""
    template = lookup(f"terminal.notice.{event.code}", language)
    if template is None:
        return event.message
    try:
        return fill(template, event.args, strict=True)
    except KeyError:
        return event.message


def key_args(args: dict[str, Any], language: str = "en") -> str:
    """The arguments worth a glance, each cut to 80 characters, a model's control or direction
    characters written out and line breaks shown as ⏎ (the echo stays one line); in Chinese the
    keys in words (``terminal.arg.*``)."""
    parts = []
    for key in KEY_ARGS:
        if key in args:
            parts.append(arg_echo(key, args[key], language))
    return " ".join(parts)


#: The tool's own sentence for a change made without an undo copy (the user allowed it in the
#: settings); the terminal says it in its language (``terminal.undo_unavailable``).
UNDO_UNAVAILABLE = "undo is not available"


def undo_note(result: dict[str, Any], language: str = "en") -> str:
    if result.get("undo") != "unavailable":
        return ""
    label = t("terminal.undo_unavailable", language)
    why = str(result.get("undoNote") or "").removeprefix(UNDO_UNAVAILABLE).lstrip(": ")
    coded = result.get("card_undo_reason")
    if isinstance(coded, dict):
        why = reason_text(coded.get("code"), coded.get("params"), why, language, written_out)
    if why:
        return t("terminal.undo_note", language, label=label, why=why)
    return t("terminal.undo_note_bare", language, label=label)


def result_summary(result: dict[str, Any] | None, language: str = "en") -> str:
    if not result:
        return ""
    if not result.get("success"):
        return failure_text(result, language) + nearest_lines(result, language)
    words = section("terminal.result", language)
    note = undo_note(result, language)
    if result.get("json_content"):
        note += words["json_content"]
    if "repository" in result and ("commit" in result or "commits" in result or "diff" in result):
        return git_summary(result, language)
    if isinstance(result.get("url"), str) and isinstance(result.get("text"), str):
        url, chars = written_out(result["url"]), len(result["text"])
        return words["web_fetch"].format(chars=chars, url=url)
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


def git_summary(result: dict[str, Any], language: str = "en") -> str:
    """A git tool's answer in one line: the commit made, the commits listed, the diff's size."""
    words = section("terminal.result", language)
    totals = {
        "n": len(result.get("files") or []),
        "a": result.get("added") or 0,
        "d": result.get("deleted") or 0,
    }
    if isinstance(result.get("commit"), str):
        sha, subject = result["commit"][:10], written_out(str(result.get("subject") or ""))
        return words["git_committed"].format(sha=sha, subject=subject, **totals)
    if isinstance(result.get("commits"), list):
        return words["git_log"].format(n=len(result["commits"]))
    return words["git_diff"].format(**totals)


def search_page(result: dict[str, Any], language: str = "en") -> str:
    """A page of a longer search, as the model was told: which matches, of how many when the
    search saw them all, and where the next page starts."""
    words = section("terminal.search", language)
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


def guard_lines(preview: Mapping[str, Any] | AnyPreview, language: str) -> list[str]:
    """Why a call asks although the mode or a grant would not (the per-turn guards)."""
    texts = section("terminal.guard", language)
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
    """The warning for a file that makes something run later, by its code."""
    texts = section("terminal.persistence", language)
    risk = texts.get(warning.code, texts["other"])
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
    refused = translation(f"tool_error.{getattr(shown, 'blocked_code', None)}", language)
    if isinstance(shown, CommandPreview) and shown.blocked and refused is not None:
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
        self._answer_shown = False  # this message's answer text reached ``out``
        self._names: dict[str, str] = {}
        self._undoable: set[str] = set()  # this turn's calls whose change can be undone
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
            self._write_answer(event.text)
            self._answer_shown = bool(event.text) or self._answer_shown
        elif isinstance(event, MessageStarted):
            self._in_thinking = False
            self._answer_shown = False
        elif isinstance(event, MessageFinished):
            self._end_thinking()
            self._settled(event)
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
                if event.status == "success" and event.undoable:
                    self._undoable.add(event.call_id)
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
            if self._undoable:  # how to take the whole turn back, as the popup's summary offers
                said = t("terminal.turns.ended", self.language, n=len(self._undoable))
                self.err.write(self._dim(f"({said}: metona-tray undo --turn {event.turn_id})\n"))
            self._undoable.clear()
        elif isinstance(event, TurnStarted):
            self._undoable.clear()
        self.err.flush()

    def _write_answer(self, text: str) -> None:
        # A terminal gets the answer with its escapes and bidi controls written out; a pipe
        # or file gets it byte for byte (what scripts read).
        self.out.write(answer_for_terminal(text) if self._out_tty else text)
        self.out.flush()

    def _settled(self, event: MessageFinished) -> None:
        """The answer's final text when it is not what streamed: printed text cannot be taken
        back, so a line says what the text above was and the answer follows (an R1 distill's
        reasoning before a lone ``</think>`` streams as answer until the tag arrives)."""
        if event.content is None or not self._answer_shown:
            if event.content:
                self._write_answer(event.content)
            return
        key = "reasoning_above" if event.thinking is not None else "answer_settled"
        self.out.write("\n")
        self.err.write(self._dim(f"{terminal_text(self.language, key)}\n"))
        self.err.flush()
        if event.content:
            self._write_answer(event.content)

    def _end_thinking(self) -> None:
        if self._in_thinking:
            self.err.write("\n")
            self._in_thinking = False
