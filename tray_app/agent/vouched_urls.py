"""Whether the person vouched for a URL: they wrote it themselves in this chat.

A network call to a URL the person wrote is what they asked for; any other URL came from the
model (or from a page it read) and asks first, in every mode but full auto. URLs are taken from
the person's messages by one linear scan and compared whole, so a URL the model made by
lengthening or cutting one the person wrote is not vouched for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# A URL ends at a space, a quote or bracket, or full-width punctuation (Chinese text often
# runs on after a URL without a space).
_ENDS_A_URL = (
    "\\s<>\"'`"
    "\uff0c\u3002\uff1b\uff1a\uff01\uff1f\uff08\uff09\u300c\u300d\u300e\u300f\u3010\u3011\u3001"
)
_URL = re.compile(f"https?://[^{_ENDS_A_URL}]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}>\uff0c\u3002\uff1b\uff1a\uff01\uff1f\uff09\u300d\u300f\u3011"


def normalized(url: str) -> str:
    """A URL as compared: without the punctuation a sentence ends it with, or a final /."""
    cut = url.strip().rstrip(_TRAILING).rstrip("/")
    scheme, sep, rest = cut.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}{sep}{host.lower()}{slash}{path}"


def urls_in(texts: Iterable[str]) -> set[str]:
    return {normalized(found.group(0)) for text in texts for found in _URL.finditer(text)}


def vouched(url: str, person_wrote: Iterable[str]) -> bool:
    """``url`` is one the person wrote in one of ``person_wrote`` (their messages)."""
    return normalized(url) in urls_in(person_wrote)
