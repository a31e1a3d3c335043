"""Which of the catalogue's languages to speak: the setting's, or the environment's."""

from __future__ import annotations

import json
import locale
import os
from collections.abc import Mapping
from pathlib import Path

from tray_app.i18n.catalogue import language_of, languages

#: The variables that say the user's language, in the order POSIX gives them priority.
LANGUAGE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


#: A settings file larger than this is not the app's (it writes a few KB): not read.
MAX_SETTINGS_BYTES = 1024 * 1024


def system_language(env: Mapping[str, str] | None = None) -> str:
    """The environment's language (the first variable set), else the process locale's."""
    env = os.environ if env is None else env
    for name in LANGUAGE_VARIABLES:
        value = env.get(name)
        if value:
            return language_of(value)
    return language_of(locale.getlocale()[0])


def resolve_language(setting: str | None) -> str:
    """The language for a ``language`` setting: ``system`` (or none) follows the environment."""
    if not setting or setting == "system":
        return system_language()
    return language_of(setting)


def settings_language(settings_file: Path, env: Mapping[str, str] | None = None) -> str:
    """The language of a settings file's ``language``, read as plain JSON (the tray's first
    menu speaks it before Core, pydantic or the store are imported); anything unreadable or
    not a catalogue's language means "system"."""
    try:
        with open(settings_file, "rb") as handle:
            data = handle.read(MAX_SETTINGS_BYTES + 1)
        raw = json.loads(data) if len(data) <= MAX_SETTINGS_BYTES else None
    except (OSError, ValueError, RecursionError):
        raw = None
    chosen = raw.get("language") if isinstance(raw, dict) else None
    if isinstance(chosen, str) and chosen in languages():
        return chosen
    return system_language(env)
