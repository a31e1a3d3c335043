"""The languages there are (the files in ``web/locales/``) and a key's text in one of them."""

from __future__ import annotations

import functools
from pathlib import Path

from tray_app.web_files import locale_texts, web_root

#: The language the code's own sentences are written in: the fallback for a missing key.
SOURCE_LANGUAGE = "en"


def languages() -> tuple[str, ...]:
    """Every ``web/locales/<code>.json``: the source language first, then by code."""
    return _languages_in(web_root() / "locales")


@functools.cache
def _languages_in(folder: Path) -> tuple[str, ...]:
    try:
        found = {path.stem for path in folder.glob("*.json") if path.is_file()}
    except OSError:
        found = set()
    found.discard(SOURCE_LANGUAGE)
    return (SOURCE_LANGUAGE, *sorted(found))


def language_names() -> list[dict[str, str]]:
    """Each language with its own name for itself (its file's ``set.language.<code>``), for
    the Settings picker: a language added as a file brings its name along."""
    return [
        {"code": code, "name": locale_texts(code).get(f"set.language.{code}", code)}
        for code in languages()
    ]


def _tag(code: str) -> str:
    """``zh_CN.UTF-8@x`` -> ``zh-cn``: a comparable language tag."""
    return code.split(".", 1)[0].split("@", 1)[0].replace("_", "-").strip().lower()


@functools.cache
def _best(code: str, known: tuple[str, ...]) -> str:
    tag = _tag(code)
    for lang in known:
        if _tag(lang) == tag:
            return lang
    primary = tag.split("-", 1)[0]
    for lang in known:
        if primary and _tag(lang).split("-", 1)[0] == primary:
            return lang
    return SOURCE_LANGUAGE


def language_of(code: str | None) -> str:
    """The catalogue language ``code`` (``zh_CN.UTF-8``, ``zh-TW``, ``en_GB``) names: the same
    code, else the same primary language, else the source language."""
    return _best(code or "", languages())


def lookup(key: str, lang: str) -> str | None:
    """``key``'s text in ``lang``, else in the source language; None when neither has it."""
    lang = language_of(lang)
    text = locale_texts(lang).get(key) if lang != SOURCE_LANGUAGE else None
    return text if text is not None else locale_texts(SOURCE_LANGUAGE).get(key)


def translation(key: str, lang: str) -> str | None:
    """``key``'s text in ``lang``'s own file, for words the code also has in its own sentences
    (a tool's failure, a server's error): None for the source language, whose own sentences
    they already are, and for a language without that key."""
    lang = language_of(lang)
    if lang == SOURCE_LANGUAGE:
        return None
    return locale_texts(lang).get(key)


def forget() -> None:
    """Read the files again (a test that writes a locale into a temporary web folder)."""
    _languages_in.cache_clear()
    _best.cache_clear()
    locale_texts.cache_clear()
