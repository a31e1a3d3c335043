"""The terminal's short lines in its language: an approval's outcome, a call denied for want of
a terminal to ask, a tool's status word and a result's counts (``bytesWritten=…``). The words
are the catalogue's ``terminal.*``; English keeps the forms scripts may already read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tray_app.i18n import lookup, resolve_language, t, written_out

#: A result's counts the terminal reports, the first one found (``terminal.count.<key>``).
COUNT_KEYS = ("bytesWritten", "total", "total_matches", "exitCode", "lines", "read")
ECHO_CHARS = 80


def language(setting: str | None) -> str:
    """The terminal's language for a ``language`` setting (``system``: the environment's)."""
    return resolve_language(setting)


def said(prefix: str, code: str, lang: str) -> str:
    """A code in words (``<prefix>.<code>``), or the code itself when it has none."""
    text = lookup(f"{prefix}.{code}", lang)
    return code if text is None else text


def approval_resolved(decision: str, by: str, lang: str) -> str:
    """``[approval] approved (terminal)``, in the terminal's language."""
    return t(
        "terminal.approval_resolved",
        lang,
        decision=said("terminal.decision", decision, lang),
        by=said("terminal.decided_by", by, lang),
    )


def tool_label(lang: str) -> str:
    """The tag of a tool call's lines; scripts reading English output keep ``[tool]``."""
    return t("terminal.tool_label", lang)


def arg_echo(key: str, value: object, lang: str) -> str:
    """One argument as the terminal echoes it: a list joined with commas, a yes/no in words,
    cut to ``ECHO_CHARS`` (a model may send megabytes), its hidden characters written out and
    its line breaks shown as ⏎ so the echo stays on its line."""
    if isinstance(value, bool):
        text = t(f"terminal.bool.{str(value).lower()}", lang)
    elif isinstance(value, list | tuple):
        text = ", ".join(str(item)[: ECHO_CHARS + 1] for item in value[:ECHO_CHARS])
    else:
        text = str(value)
    if len(text) > ECHO_CHARS:
        text = text[: ECHO_CHARS - 1] + "…"
    shown = written_out(text.replace("\n", "⏎"))
    return t("terminal.arg_echo", lang, key=said("terminal.arg", key, lang), value=shown)


def terminal_text(lang: str, key: str, **fields: object) -> str:
    return t(f"terminal.{key}", lang, **fields)


def status_word(status: str, lang: str) -> str:
    return said("terminal.status", status, lang)


def count_line(result: Mapping[str, Any], note: str, lang: str) -> str:
    """The first count a result has, with what it left out; ``ok`` (``terminal.done``) when none."""
    for key in COUNT_KEYS:
        if key not in result:
            continue
        omitted = [_omitted(k, v, lang) for k, v in result.items() if k.endswith("_omitted")]
        shown = [text for text in omitted if text]
        separator = t("terminal.list_separator", lang)
        extra = t("terminal.omitted_list", lang, list=separator.join(shown)) if shown else ""
        return t(f"terminal.count.{key}", lang, v=result[key]) + note + extra
    return t("terminal.done", lang) + note


def _omitted(key: str, value: object, lang: str) -> str:
    template = lookup(f"terminal.omitted.{key}", lang)
    text = t("terminal.omitted_other", lang, key=key, v=value)
    if template is not None:
        text = t(f"terminal.omitted.{key}", lang, v=value)
    return t("terminal.omitted_zero", lang, said=text) if not value else text


def turn_failed(code: str, message: str, lang: str) -> str:
    """``error: <message>``; in Chinese the cause by its code, the app's words quoted."""
    cause = lookup(f"terminal.error.{code}", lang) or lookup(f"error.{code}", lang)
    cause = cause or t("error.internal", lang)
    if not message:
        return t("terminal.turn_failed_bare", lang, cause=cause, text=message)
    return t("terminal.turn_failed", lang, cause=cause, text=message, message=written_out(message))
