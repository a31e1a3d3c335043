"""Why the OS keyring keeps no keys, in the ``keyring`` library's own words, for ``doctor``.

``SecretStore.problem`` says the kind of trouble; the user also deserves the library's reason
(no backend at all, no Secret Service on the bus, a locked collection). Its text is English, so
each known reason is mapped to one of ``SecretStore``'s problem codes, which the terminal says
in the user's language (the page's ``keyring.<code>``) with the library's text quoted after
it; a reason not in the table keeps only its quoted text. Nothing here prompts: the Secret
Service is asked only whether it can be reached, never to unlock.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TypedDict

from tray_app.store.secrets import INSECURE, LOCKED, NO_KEYRING, UNAVAILABLE, SecretStore

#: The library's reasons (lower case, a part of its message) and their codes. keyring 25:
#: ``backends/fail.py``, ``backends/SecretService.py``, ``backends/libsecret.py``.
KNOWN_REASONS: tuple[tuple[str, str], ...] = (
    ("no recommended backend was available", NO_KEYRING),
    ("secretstorage required", NO_KEYRING),
    ("secretstorage 3.2 or newer required", NO_KEYRING),
    ("libsecret required", NO_KEYRING),
    ("neither running nor activatable through d-bus", UNAVAILABLE),
    ("unable to initialize secretservice", UNAVAILABLE),
    ("can't open a session to the secret service", UNAVAILABLE),
    ("failed to create the collection", UNAVAILABLE),
    ("failed to unlock", LOCKED),
    ("prompt dismissed", LOCKED),
)
#: Only the start of a reason is searched: a backend's message is not ours to bound.
_SEARCHED = 2_000


class Cause(TypedDict):
    """One reason: its code (None: not a reason we know) and the library's text (None: the
    app's own finding, said by the code alone)."""

    code: str | None
    detail: str | None


def reason_code(text: str) -> str | None:
    """The problem code of a keyring reason, or None when it is not one the table knows."""
    lowered = text[:_SEARCHED].lower()
    return next((code for part, code in KNOWN_REASONS if part in lowered), None)


def _secret_service_reason() -> str | None:
    """Why keyring's Secret Service backend is not viable here (its ``priority`` raises the
    reason), or None. Linux only, and not when ``PYTHON_KEYRING_BACKEND`` chose a backend."""
    if not sys.platform.startswith("linux") or os.environ.get("PYTHON_KEYRING_BACKEND"):
        return None
    try:
        from keyring.backends import SecretService

        SecretService.Keyring.priority  # noqa: B018 - the property raises the reason
    except Exception as exc:
        return str(exc) or type(exc).__name__
    return None


def _fail_backend_reason() -> str:
    """keyring's own sentence when no backend is available (its ``fail`` backend's error)."""
    from keyring.backends import fail

    failing: Any = fail.Keyring  # keyring is untyped
    try:
        failing().get_password("metona-tray", "doctor")
    except Exception as exc:
        return str(exc) or type(exc).__name__
    return "no keyring backend"


def keyring_causes(secrets: SecretStore) -> list[Cause]:
    """Why ``secrets`` keeps keys for the session only, most specific first; [] when usable."""
    if secrets.usable:
        return []
    if secrets.detail:  # a backend failed: its own error
        return [Cause(code=reason_code(secrets.detail), detail=secrets.detail)]
    causes: list[Cause] = []
    if (said := _secret_service_reason()) is not None:
        causes.append(Cause(code=reason_code(said), detail=said))
    elif secrets.backend_name == "keyring.backends.fail.Keyring":
        said = _fail_backend_reason()
        causes.append(Cause(code=reason_code(said), detail=said))
    if secrets.problem and (secrets.problem == INSECURE or not causes):
        causes.insert(0, Cause(code=secrets.problem, detail=None))
    return causes
