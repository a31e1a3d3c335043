"""Which of the catalogue's languages to speak: the setting's, or the environment's."""

from __future__ import annotations

import locale
import os

from tray_app.i18n.catalogue import language_of

#: The variables that say the user's language, in the order POSIX gives them priority.
LANGUAGE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def system_language() -> str:
    """The environment's language (the first variable set), else the process locale's."""
    for name in LANGUAGE_VARIABLES:
        value = os.environ.get(name)
        if value:
            return language_of(value)
    return language_of(locale.getlocale()[0])


def resolve_language(setting: str | None) -> str:
    """The language for a ``language`` setting: ``system`` (or none) follows the environment."""
    if not setting or setting == "system":
        return system_language()
    return language_of(setting)
