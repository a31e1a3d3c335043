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

from tray_app.i18n import SOURCE_LANGUAGE, language_of, t, written_out
from tray_app.terminal_errors import failure_text
from tray_app.web_files import locale_texts

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
    if not turns:
        return [t("terminal.turns.none", language)]
    lines = []
    for turn in turns:
        n = len(turn["changes"])
        count = t("terminal.turns.count", language, n=n, can=turn["undoable"])
        prompt = " ".join(str(turn.get("turn_prompt") or "").split())
        if len(prompt) > PROMPT_SHOWN:
            prompt = prompt[: PROMPT_SHOWN - 1] + "…"
        chat = turn.get("session_title") or t("terminal.turns.other_chat", language)
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(turn["time"]))
        lines.append(written_out(f"{turn['turn_id']}  {when}  {count}  “{prompt}”  ({chat})"))
    return lines


def undo_report(
    result: dict[str, Any], language: str, done_line: Callable[[dict[str, Any]], str]
) -> tuple[list[str], list[str]]:
    """What ``undo --turn`` did: the lines for stdout (the summary, what was put back) and for
    stderr (each change left, with why, and how to undo them anyway)."""
    outcomes: list[dict[str, Any]] = result.get("outcomes") or []
    turn, undone = result.get("turn_id", ""), int(result.get("undone") or 0)
    key = "summary_all" if undone == len(outcomes) else "summary"
    head = t(f"terminal.turns.{key}", language, undone=undone, tried=len(outcomes), turn=turn)
    if result.get("already"):
        head += " " + t("terminal.turns.already", language, n=result["already"])
    out = [written_out(head)]
    err = []
    for outcome in outcomes:
        if outcome.get("success"):
            out.append(written_out("  " + done_line(outcome)))
        else:
            why = _why(outcome, language)
            path = outcome.get("path", "")
            err.append(written_out(t("terminal.turns.left", language, path=path, why=why)))
    forceable = sum(1 for o in outcomes if o.get("forceable"))
    if forceable:
        hint = t("terminal.turns.force_hint", language, n=forceable, turn=turn)
        err.append(written_out(hint))
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
