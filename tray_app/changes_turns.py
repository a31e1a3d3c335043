"""``metona-tray changes --turns`` and ``metona-tray undo --turn``: a turn's changes as one.

A turn is one question of the user and everything the agent did to answer it; its changes are
listed and undone together (``ChangeService.undo_turn``: newest first, each checked against the
state its change left). What could not be undone is said per file, with why, and a change the
user could still undo by force (edited or removed since) says how. Words in the terminal's
language, names with hidden characters written out (``written_out``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tray_app.i18n import SOURCE_LANGUAGE, language_of, written_out
from tray_app.terminal_errors import failure_text
from tray_app.web_files import locale_texts

#: The turn list's and the turn undo's words in the terminal's language.
WORDS = {
    "en": {
        "no_turns": "No turn has changed any file.",
        "count": "{n} changes, {can} can be undone",
        "count_one": "1 change, {can} can be undone",
        "other_chat": "a chat not kept here",
        "summary": "Undid {undone} of {tried} changes of turn {turn}",
        "summary_all": "Undid all {undone} changes of turn {turn}",
        "already": "({n} were undone before)",
        "left": "left {path}: {why}",
        "force_hint": (
            "{n} of them changed after the turn; `metona-tray undo --turn {turn} --force`"
            " undoes them anyway, replacing what changed"
        ),
    },
    "zh-CN": {
        "no_turns": "还没有哪一轮更改过文件。",
        "count": "{n} 项更改，{can} 项可撤销",
        "count_one": "1 项更改，{can} 项可撤销",
        "other_chat": "不在此处保存的对话",
        "summary": "已撤销轮次 {turn} 的 {tried} 项更改中的 {undone} 项",
        "summary_all": "已撤销轮次 {turn} 的全部 {undone} 项更改",
        "already": "（其中 {n} 项之前已撤销）",
        "left": "保留 {path}：{why}",
        "force_hint": (
            "其中 {n} 项在本轮之后被改动过；`metona-tray undo --turn {turn} --force`"
            " 会仍然撤销它们，覆盖之后的改动"
        ),
    },
}

#: How much of a turn's question a list line shows.
PROMPT_SHOWN = 60


def turns_of(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The journal's changes grouped by turn, newest turn first (changes with no known turn,
    such as those a tool server made, are in none)."""
    found: dict[str, dict[str, Any]] = {}
    for entry in entries:
        turn_id = entry.get("turn_id")
        if not turn_id:
            continue
        turn = found.setdefault(
            str(turn_id),
            {
                "turn_id": str(turn_id),
                "time": entry["time"],
                "session_id": entry.get("session_id"),
                "session_title": entry.get("session_title"),
                "turn_prompt": entry.get("turn_prompt"),
                "changes": [],
            },
        )
        turn["changes"].append(entry["seq"])
        turn.setdefault("undoable", 0)
        turn["undoable"] += int(bool(entry["undoable"]) and not entry["undone"])
    return list(found.values())


def turn_lines(turns: list[dict[str, Any]], language: str) -> list[str]:
    """One line per turn: its id, when, how many changes, its question and chat."""
    words = WORDS[language]
    if not turns:
        return [words["no_turns"]]
    lines = []
    for turn in turns:
        n = len(turn["changes"])
        count = words["count_one" if n == 1 else "count"].format(n=n, can=turn["undoable"])
        prompt = " ".join(str(turn.get("turn_prompt") or "").split())
        if len(prompt) > PROMPT_SHOWN:
            prompt = prompt[: PROMPT_SHOWN - 1] + "…"
        chat = turn.get("session_title") or words["other_chat"]
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(turn["time"]))
        lines.append(written_out(f"{turn['turn_id']}  {when}  {count}  “{prompt}”  ({chat})"))
    return lines


def undo_report(
    result: dict[str, Any], language: str, done_line: Callable[[dict[str, Any]], str]
) -> tuple[list[str], list[str]]:
    """What ``undo --turn`` did: the lines for stdout (the summary, what was put back) and for
    stderr (each change left, with why, and how to undo them anyway)."""
    words = WORDS[language]
    outcomes: list[dict[str, Any]] = result.get("outcomes") or []
    turn, undone = result.get("turn_id", ""), int(result.get("undone") or 0)
    key = "summary_all" if undone == len(outcomes) else "summary"
    head = words[key].format(undone=undone, tried=len(outcomes), turn=turn)
    if result.get("already"):
        head += " " + words["already"].format(n=result["already"])
    out = [written_out(head)]
    err = []
    for outcome in outcomes:
        if outcome.get("success"):
            out.append(written_out("  " + done_line(outcome)))
        else:
            why = _why(outcome, language)
            path = outcome.get("path", "")
            err.append(written_out(words["left"].format(path=path, why=why)))
    forceable = sum(1 for o in outcomes if o.get("forceable"))
    if forceable:
        err.append(written_out(words["force_hint"].format(n=forceable, turn=turn)))
    return out, err


def _why(outcome: dict[str, Any], language: str) -> str:
    """Why a change was left: its code's sentence in the terminal's language (English from the
    page's catalogue, shorter than the journal's log sentence), else the journal's sentence."""
    if language_of(language) != SOURCE_LANGUAGE:
        return failure_text(outcome, language)
    template = locale_texts("en").get(f"tool_error.{outcome.get('code')}")
    params = outcome.get("params")
    if template is not None and isinstance(params, dict):
        try:
            return template.format_map({str(k): written_out(v) for k, v in params.items()})
        except (KeyError, IndexError, ValueError):
            pass
    return failure_text(outcome, language)
