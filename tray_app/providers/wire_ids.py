"""The tool-call ids a request sends back: nine letters or digits, derived from the stored id.

Mistral-family servers (mistral_common behind vLLM ``--tokenizer-mode mistral``, Mistral's API,
Mistral v3 chat templates) refuse a history whose ids are not exactly nine of ``[a-zA-Z0-9]``
with HTTP 400 ("Tool call id was call_… but must be a-z, A-Z, 0-9, with a length of 9":
vllm-project/vllm#9019 and #12332, jackmpcollins/magentic#276), so a tool loop died after its
first call. Every other server treats ids as opaque strings that only pair a call with its
result, so the one rule for all servers: an id that already fits is sent as it is; any other
(OpenAI's ``call_…``, llama.cpp's, ours for id-less calls) is replaced by nine characters of a
hash of it. The same stored id always gives the same wire id, so the assistant message and its
tool result stay paired, and the same history is sent the same way every time (prompt caches
keep working). A server that reuses one id in several turns (``call_0``) gets a distinct wire
id for each reuse: the n-th assistant call with that id is hashed with n.
"""

from __future__ import annotations

import hashlib
import re

WIRE_ID_LENGTH = 9
_FITS = re.compile(r"[A-Za-z0-9]{9}")
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def wire_id(stored: str) -> str:
    """``stored`` when it is nine letters or digits, else nine base-62 characters of its hash."""
    if _FITS.fullmatch(stored):
        return stored
    digest = hashlib.blake2b(stored.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    number = int.from_bytes(digest, "big")
    chars = []
    for _ in range(WIRE_ID_LENGTH):
        number, digit = divmod(number, len(_ALPHABET))
        chars.append(_ALPHABET[digit])
    return "".join(chars)


class WireIds:
    """One request's ids: each assistant call gets its wire id, each result the id of the
    newest call it answers."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}  # stored id -> calls with it so far
        self._latest: dict[str, str] = {}  # stored id -> the wire id of its newest call

    def call(self, stored: str) -> str:
        """The wire id of an assistant's call stored with ``stored``."""
        count = self._seen.get(stored, 0)
        self._seen[stored] = count + 1
        sent = wire_id(stored if count == 0 else f"{stored}#{count}")
        self._latest[stored] = sent
        return sent

    def result(self, stored: str) -> str:
        """The wire id a tool result answering ``stored`` carries (its call's, when it had one)."""
        return self._latest.get(stored) or wire_id(stored)
