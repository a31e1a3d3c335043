"""What the ``mcp`` commands share: their exit codes, and a failed server's cause in words.

``mcp list`` and ``mcp test`` print a server's failure with it, ``mcp import`` a config file's
server that cannot be added.
"""

from __future__ import annotations

from typing import Any

from tray_app.i18n.section import Section

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def error_words(row: dict[str, Any], text: Section, config: Any = None) -> str:
    """A server's failure in words when its cause is known (``mcp/causes.py``); otherwise its
    own detail, quoted. The command or address is the server's config."""
    from tray_app.i18n import written_out
    from tray_app.os_reasons import os_reason_text

    code, params = row.get("error_code"), row.get("error_params") or {}
    language = text.lang
    if code == "spawn_failed":
        why = os_reason_text(params, language, written_out)
        command = getattr(config, "command", None) or "?"
        return text["cause.spawn_failed"].format(command=command, why=why)
    if code == "keyring_unreadable" or str(code).startswith("name_"):
        from tray_app.web_files import locale_texts  # the page's own words for it (one copy)

        try:  # a refused name: its character is written out with the whole line
            words = locale_texts(language)[f"mcp.{code}"]
            return words.format_map({key: str(value) for key, value in params.items()})
        except (KeyError, IndexError, ValueError):
            pass  # no text for it, or params that do not fit: the detail, quoted
    if code in ("unreachable", "timed_out"):
        return text[f"cause.{code}"].format(url=getattr(config, "url", None) or "?")
    return text["cause.other"].format(detail=row["error"])
