"""``t``: a key's text in a language, its ``{name}`` placeholders filled as the page fills them."""

from __future__ import annotations

import re
from collections.abc import Mapping

from tray_app.i18n.catalogue import lookup
from tray_app.i18n.plural import plural_form

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(template: str, params: Mapping[str, object], *, strict: bool = False) -> str:
    """``template`` with each ``{name}`` replaced by ``params[name]``. A name without a value
    stays as written (as on the page), or raises ``KeyError`` when ``strict``."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in params:
            return str(params[name])
        if strict:
            raise KeyError(name)
        return match.group(0)

    return _PLACEHOLDER.sub(value, template)


def t(key: str, lang: str, /, **params: object) -> str:
    """``key``'s text in ``lang`` (else the source language's, else the key itself). A number
    ``n`` picks the plural form ``<key>_<form>`` first, as the page's ``t`` does."""
    text = lookup(key, lang)
    n = params.get("n")
    if isinstance(n, int | float) and not isinstance(n, bool):
        form = lookup(f"{key}_{plural_form(n, lang)}", lang) or lookup(f"{key}_other", lang)
        text = form or text
    return key if text is None else fill(text, params)
