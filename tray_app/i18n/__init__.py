"""Words in the user's language, from the one catalogue per language in ``web/locales/``.

The page and the Python side read the same files: ``t(key, lang, **params)`` says a key,
``resolve_language`` turns the setting (or the environment) into one of the ``languages()``
found there, and ``written_out`` shows hidden characters of untrusted text. Adding a language
is adding one file. Imports only the bottom layer and the standard library.
"""

from tray_app.i18n.catalogue import (
    SOURCE_LANGUAGE,
    forget,
    language_names,
    language_of,
    languages,
    lookup,
    translation,
)
from tray_app.i18n.choice import resolve_language, settings_language, system_language
from tray_app.i18n.hidden import written_out
from tray_app.i18n.plural import plural_form
from tray_app.i18n.section import section
from tray_app.i18n.words import fill, t

__all__ = [
    "SOURCE_LANGUAGE",
    "fill",
    "forget",
    "language_names",
    "language_of",
    "languages",
    "lookup",
    "plural_form",
    "resolve_language",
    "section",
    "settings_language",
    "system_language",
    "t",
    "translation",
    "written_out",
]
