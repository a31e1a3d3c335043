"""Where the page's files are, and its locale files read by the Python side.

The popup loads ``web/index.html``; the terminal and the tray say a few of the page's texts too
(an undo reason, in ``undo_reasons``) and read them from the same ``web/locales/*.json``, so
there is one copy to translate. In a checkout ``web/`` sits next to the package; in a frozen
build it is unpacked beside the program (``_MEIPASS``); ``METONA_WEB_DIR`` overrides both.
Imports only the standard library: every layer may use it.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

log = logging.getLogger(__name__)

LOCALE_LIMIT = 4 * 1024 * 1024  # bytes: a locale file is ~40 KB; a bigger one is not read


def web_root() -> Path:
    """The page: next to the package in a checkout, under ``_MEIPASS`` when frozen."""
    override = os.environ.get("METONA_WEB_DIR")
    if override:
        return Path(override)
    if getattr(sys, "frozen", False):
        return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "web"
    return Path(__file__).resolve().parents[1] / "web"


@functools.cache
def locale_texts(language: str) -> Mapping[str, str]:
    """``web/locales/<language>.json``, read once: its string entries by key. Empty (and
    logged) when the file is missing, too large or damaged; callers then keep their English."""
    path = web_root() / "locales" / f"{language}.json"
    try:
        with path.open("rb") as file:
            raw = file.read(LOCALE_LIMIT + 1)
        if len(raw) > LOCALE_LIMIT:
            raise ValueError(f"larger than {LOCALE_LIMIT} bytes")
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        log.warning("locale %s could not be read (%s): its texts stay in English", path, exc)
        return MappingProxyType({})
    return MappingProxyType({k: v for k, v in data.items() if isinstance(v, str)})
