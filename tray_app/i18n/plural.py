"""A count's plural category in a language (CLDR's, as the page's ``Intl.PluralRules``)."""

from __future__ import annotations

import functools
from collections.abc import Callable


@functools.cache
def _rule(lang: str) -> Callable[[float], str]:
    # imported on the first count: the tray's first menu must not wait for CLDR's tables
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(lang, sep="-").plural_form
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en").plural_form


def plural_form(n: float, lang: str) -> str:
    """``one``, ``few``, ``other`` ...: which ``<key>_<form>`` a count of ``n`` takes."""
    return _rule(lang)(n)
