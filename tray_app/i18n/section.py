"""The keys under one prefix (``terminal.preview.*``) as a read-only mapping in a language."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tray_app.i18n.catalogue import SOURCE_LANGUAGE, lookup
from tray_app.web_files import locale_texts


class Section(Mapping[str, str]):
    """``section["ask"]`` is ``<prefix>.ask`` in ``lang`` (else the source language's); a
    missing key raises ``KeyError`` and ``get`` gives its default, as a dict would."""

    def __init__(self, prefix: str, lang: str) -> None:
        self.prefix = prefix
        self.lang = lang

    def __getitem__(self, key: str) -> str:
        text = lookup(f"{self.prefix}.{key}", self.lang)
        if text is None:
            raise KeyError(key)
        return text

    def __iter__(self) -> Iterator[str]:
        lead = f"{self.prefix}."
        keys = locale_texts(SOURCE_LANGUAGE)
        return (key[len(lead) :] for key in keys if key.startswith(lead))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def section(prefix: str, lang: str) -> Section:
    return Section(prefix, lang)
