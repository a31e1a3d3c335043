"""API keys of model endpoints, kept only in the OS keyring.

Service ``metona-tray``, username = the endpoint URL (normalised like the settings do). When
there is no usable keyring -- keyring's ``fail`` or ``null`` backend, or a backend that raises
-- the key lives in this object's memory for the session and ``usable`` is False with a
``reason`` (English detail, for logs and ``doctor``) and a ``problem`` code the page says in the
user's language: the keyring is locked, the Secret Service is gone, there is none, or it would
write keys in clear. Storing a key after a backend failed tries that backend again, so
unlocking the keyring (or its service coming back) needs no restart. Backends that would write
the key to a file in clear (``keyrings.alt``'s) count as unusable unless ``allow_insecure``
(tests only). Keys never go to the settings file, to any other file, or to a log line.

Reading never asks the user: it never creates the Secret Service's default collection nor
unlocks it (``keyring_calls``), and gives up after a few seconds; a locked keyring is asked for
its password only when a key is stored, the user's own act.
"""

from __future__ import annotations

import logging
from typing import Any

from tray_app.i18n import written_out
from tray_app.os_reasons import os_error_text
from tray_app.store.keyring_calls import (
    ONE_AT_A_TIME,
    KeyringIsLocked,
    KeyringState,
    KeyringTimeout,
    default_keyring_state,
    is_secret_service,
    read_secret_service,
    timed,
    unlock_default,
)

log = logging.getLogger(__name__)

SERVICE = "metona-tray"


_NO_BACKEND = ("keyring.backends.fail.Keyring", "keyring.backends.null.Keyring")
_INSECURE_PREFIX = "keyrings.alt."

#: ``SecretStore.problem``: why keys are not kept in the keyring (web/locales ``keyring.*``).
NO_KEYRING = "no_keyring"  # no backend on this system
INSECURE = "insecure"  # only a backend that writes keys to a file in clear
LOCKED = "locked"  # the keyring is locked, or its unlock prompt was dismissed
UNAVAILABLE = "unavailable"  # the backend failed: the Secret Service is gone, D-Bus failed


def _problem_of(exc: BaseException) -> str:
    """LOCKED for a locked keyring (keyring's own error, or SecretStorage's prompt text),
    else UNAVAILABLE."""
    import keyring.errors

    if isinstance(exc, (keyring.errors.KeyringLocked, KeyringIsLocked)):
        return LOCKED
    text = str(exc).lower()
    return LOCKED if "locked" in text or "prompt dismissed" in text else UNAVAILABLE


def _vanished(exc: BaseException) -> bool:
    """SecretStorage's ItemNotFoundException: another process (``mcp serve``, a terminal
    command) removed the entry while this one read or removed it. It is simply not there; the
    keyring works (one such race used to make every key session-only until a restart)."""
    try:
        from secretstorage.exceptions import ItemNotFoundException
    except ImportError:  # not Linux, or no SecretStorage: no such race
        return False
    return isinstance(exc, ItemNotFoundException)


#: How much of a backend's error is kept (its message is not ours to bound).
_MAX_REASON = 1_000

_NONE = ("no keyring backend is available on this system", NO_KEYRING)


class SecretUnreadable(Exception):
    """A kept secret cannot be read now (the keyring is locked, gone or does not answer): it
    may well be there. ``problem`` is one of the codes above."""

    def __init__(self, problem: str, reason: str) -> None:
        super().__init__(reason)
        self.problem = problem


def endpoint_key(endpoint: str) -> str:
    """The keyring username for an endpoint: trimmed, without a trailing slash."""
    return endpoint.strip().rstrip("/")


def _class_name(backend: Any) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


class SecretStore:
    """Get, set and delete endpoint API keys; falls back to memory, never to disk."""

    def __init__(self, backend: Any | None = None, *, allow_insecure: bool = False) -> None:
        self._memory: dict[str, str] = {}
        self._backend: Any | None = None
        self._failed: Any | None = None  # the backend that failed: tried again on the next set
        self.reason: str | None = None
        self.problem: str | None = None
        self.detail: str | None = None  # the keyring library's own words, when it failed
        import keyring  # here, not at import: most starts never need a key (~15 ms)

        self.backend_name = "keyring"
        try:  # keyring reads its config file first: a config folder it cannot stat raises
            chosen = keyring.get_keyring() if backend is None else backend
        except Exception as exc:
            self._disable(exc, None)
            return
        self.backend_name = _class_name(chosen)
        try:  # a ChainerBackend asks each backend again: the Secret Service may be gone by now
            candidates = list(getattr(chosen, "backends", None) or [chosen])
        except Exception as exc:
            self._disable(exc, None)
            return
        refusals: list[tuple[str, str]] = []
        for candidate in candidates:
            refusal = self._refusal(candidate, allow_insecure=allow_insecure)
            if refusal is None:
                self._backend = candidate
                break
            refusals.append(refusal)
        if self._backend is None:
            self.reason, self.problem = refusals[0] if refusals else _NONE
        self.backend_name = _class_name(self._backend if self._backend is not None else chosen)

    @staticmethod
    def _refusal(backend: Any, *, allow_insecure: bool) -> tuple[str, str] | None:
        """(reason, problem) when this backend must not keep keys."""
        name = _class_name(backend)
        if name in _NO_BACKEND:
            return _NONE
        if name.startswith(_INSECURE_PREFIX) and not allow_insecure:
            return f"the keyring backend {name} would keep keys in a file in clear text", INSECURE
        return None

    @property
    def usable(self) -> bool:
        """Whether keys survive a restart (False: kept in memory for this session only)."""
        return self._backend is not None

    def keyring_state(self) -> KeyringState | None:
        """The Secret Service's default keyring, looked at without a prompt and for a few
        seconds at most: ``unlocked``, ``locked`` (storing a key asks for its password),
        ``missing`` (storing one asks to choose a password for a new keyring); None when this
        is not a Secret Service or it did not say."""
        backend = self._backend
        if backend is None or not is_secret_service(backend):
            return None
        try:
            return timed(lambda: default_keyring_state(backend))
        except Exception:  # the service left or hangs: get/set will say
            return None

    def unlock(self) -> bool:
        """Ask the user to unlock the Secret Service's keyring, on their own act (saving a tool
        server whose secret is kept there); False when it stays locked or cannot be asked."""
        backend = self._backend
        if backend is None or not is_secret_service(backend):
            return False
        try:
            with ONE_AT_A_TIME:
                return unlock_default(backend)
        except Exception:  # dismissed too late, the service left: the server says why
            return False

    def remembered(self, endpoint: str) -> str | None:
        """A key kept in memory for this session (the keyring could not keep it)."""
        return self._memory.get(endpoint_key(endpoint))

    def get(self, endpoint: str) -> str | None:
        """A kept key, or None when there is none or the keyring cannot be read now."""
        try:
            return self.read(endpoint)
        except SecretUnreadable:
            return None

    def read(self, endpoint: str) -> str | None:
        """A kept key (None: none is kept); SecretUnreadable when the keyring cannot be read
        now. Never creates a keyring, never asks to unlock one, waits a few seconds at most."""
        user = endpoint_key(endpoint)
        backend = self._backend  # once: another thread may turn it off meanwhile
        if user in self._memory:
            return self._memory[user]
        if backend is None:
            raise SecretUnreadable(self.problem or NO_KEYRING, self.reason or _NONE[0])
        try:
            if is_secret_service(backend):
                value = timed(lambda: read_secret_service(backend, SERVICE, user))
            else:
                value = timed(lambda: backend.get_password(SERVICE, user))
        except (KeyringIsLocked, KeyringTimeout) as exc:  # asked later, when the user acts
            problem = LOCKED if isinstance(exc, KeyringIsLocked) else UNAVAILABLE
            said = f"{type(exc).__name__}: {exc}"
            raise SecretUnreadable(
                problem, f"the keyring backend {self.backend_name} could not be read ({said})"
            ) from None
        except Exception as exc:
            if _vanished(exc):
                return None
            self._disable(exc, None)
            raise SecretUnreadable(self.problem or UNAVAILABLE, self.reason or "") from None
        return value if isinstance(value, str) and value else None

    def set(self, endpoint: str, key: str) -> None:
        """Store a key (an empty one deletes)."""
        user = endpoint_key(endpoint)
        key = key.strip()
        if not key:
            self.delete(endpoint)
            return
        if self._backend is None and self._failed is not None:
            self._retry()
        backend = self._backend
        if backend is not None:
            try:
                with ONE_AT_A_TIME:
                    backend.set_password(SERVICE, user, key)
            except Exception as exc:
                self._disable(exc, key)
            else:
                self._memory.pop(user, None)
                return
        self._memory[user] = key

    def _retry(self) -> None:
        """Storing a key after a failure tries the keyring again (the user unlocked it, its
        service came back): if it works, the keys kept in memory meanwhile move there."""
        backend = self._failed
        if backend is None:
            return
        self._backend, self._failed = backend, None
        self.reason = self.problem = self.detail = None
        for user, key in list(self._memory.items()):
            try:
                with ONE_AT_A_TIME:
                    backend.set_password(SERVICE, user, key)
            except Exception as exc:
                self._disable(exc, key)
                return
            self._memory.pop(user, None)

    def delete(self, endpoint: str) -> None:
        """Remove a kept key. A session with no keyring yet has none to remove: keyring would
        create one first, asking the user for a password, so it is not asked."""
        user = endpoint_key(endpoint)
        self._memory.pop(user, None)
        backend = self._backend
        if backend is None or self.keyring_state() == "missing":
            return
        import keyring.errors

        try:
            with ONE_AT_A_TIME:
                backend.delete_password(SERVICE, user)
        except keyring.errors.PasswordDeleteError:
            pass  # there was none
        except Exception as exc:
            if not _vanished(exc):
                self._disable(exc, None)

    def _disable(self, exc: Exception, key: str | None) -> None:
        """The keyring failed: keep keys in memory from now on and say why."""
        said = os_error_text(exc) or type(exc).__name__  # a path as it is, not its repr
        if key:  # before cutting: a key cut in two would not be found
            said = said.replace(key, "***")
        said = said[:_MAX_REASON]  # a backend's words, bounded
        self.reason = (
            f"the keyring backend {self.backend_name} failed ({type(exc).__name__}: {said})"
        )
        self.detail = said
        self.problem = _problem_of(exc)
        self._failed = self._backend if self._backend is not None else self._failed
        self._backend = None
        # a terminal command keeps no log: this goes to stderr, so names are written out
        log.warning("%s; API keys are kept for this session only", written_out(self.reason))
