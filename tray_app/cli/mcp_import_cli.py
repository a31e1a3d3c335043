"""``metona-tray mcp import FILE``: a Claude Desktop config's ``mcpServers`` added to the
settings file, with a refused file or server name said in the terminal's language (the words
and exit codes are ``mcp_cli``'s)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from tray_app.base.paths import AppPaths
from tray_app.cli.mcp_report import EXIT_OK, EXIT_USAGE, error_words
from tray_app.i18n.section import Section


def _bad_file(file: Path, exc: Exception, text: Section) -> str:
    """Why ``file`` cannot be imported: an OS error by its errno in the terminal's language
    (``os_reasons``), else the parser's words; the name written out (``⟨U+202E⟩``)."""
    from tray_app.i18n import SOURCE_LANGUAGE, language_of, written_out
    from tray_app.os_reasons import os_params, os_reason_text

    language = text.lang
    if isinstance(exc, OSError):
        why = os_reason_text(os_params(exc), language, written_out)
    else:  # the parser's English, quoted where the sentence is Chinese (as cause.other)
        why = (
            text["cause.other"].format(detail=written_out(exc))
            if language_of(language) != SOURCE_LANGUAGE
            else written_out(exc)
        )
    return text["bad_file"].format(file=written_out(file), error=why)


def run_import(file: Path, paths: AppPaths, text: Section, out: TextIO) -> int:
    from tray_app.i18n import written_out
    from tray_app.mcp.config import KEYRING_PREFIX, RefusedServer, read_claude_config
    from tray_app.store.settings import load_settings, save_settings

    try:
        block = read_claude_config(file)
    except RefusedServer as exc:
        if exc.code is None:  # not coded: the check's English, as any other bad file
            print(_bad_file(file, exc, text), file=sys.stderr)
        else:  # a refused name, in the terminal's language
            said = text["bad_file"].format(file=file, error=_refusal_words(exc, text))
            print(written_out(said), file=sys.stderr)
        return EXIT_USAGE
    except (OSError, ValueError) as exc:
        print(_bad_file(file, exc, text), file=sys.stderr)
        return EXIT_USAGE
    settings = load_settings(paths.settings_file)
    replaced = sorted(set(block) & set(settings.mcp_servers))
    merged = {**settings.mcp_servers, **block}
    save_settings(settings.model_copy(update={"mcp_servers": merged}), paths.settings_file)
    names = ", ".join(block)
    print(
        text["imported"].format(count=len(block), file=paths.settings_file, names=names), file=out
    )
    if replaced:
        print(text["replaced"].format(names=", ".join(replaced)), file=out)
    plain = [
        name
        for name, entry in block.items()
        for values in (entry.get("env") or {}, entry.get("headers") or {})
        if isinstance(values, dict)
        and any(
            isinstance(v, str) and v and not v.startswith(KEYRING_PREFIX) for v in values.values()
        )
    ]
    if plain:
        print(text["plain_secret"].format(names=", ".join(dict.fromkeys(plain))), file=out)
    return EXIT_OK


def _refusal_words(exc: Any, text: Section) -> str:
    """An imported server's refused name in the terminal's language (the page's texts)."""
    row = {"error": str(exc), "error_code": exc.code, "error_params": exc.params}
    words = error_words(row, text)
    from tray_app.web_files import locale_texts

    language = text.lang
    said = locale_texts(language).get("mcp.server_refused", "server \u201c{name}\u201d: {why}")
    try:
        return said.format_map({"name": exc.server, "why": words})
    except (KeyError, IndexError, ValueError):
        return words
