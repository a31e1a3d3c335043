"""Keyring calls that never hold the caller and never ask the user.

keyring's Secret Service backend reads through ``get_default_collection``, which *creates* the
default collection when a fresh session has none (a "choose a password for the new keyring"
prompt) and unlocks a locked one (a password prompt); either waits on the user with no time
limit. A read must do neither: ``read_secret_service`` looks the collection up by its alias
without creating it and says LOCKED instead of unlocking, and ``timed`` runs any call on its
own thread so a Secret Service that does not answer costs the caller ``timeout`` seconds, not
the start of the app. Storing a key (the user's own act) still goes through keyring, and may
ask.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import closing
from typing import Any, Literal, TypeVar

T = TypeVar("T")

#: One keyring call at a time in this process. keyring's Secret Service backend opens a new
#: D-Bus connection and session per call; gnome-keyring answers concurrent ones wrongly (the
#: default collection "missing", then a prompt; an entry gone mid-read) or aborts.
ONE_AT_A_TIME = threading.Lock()

#: How long a read or a look at the keyring may take before the app stops waiting for it.
READ_TIMEOUT = 5.0

#: How long the keyring's own unlock prompt may wait for the user's answer.
UNLOCK_TIMEOUT = 300.0

#: ``default_keyring_state``: the Secret Service's default collection is open, locked (storing
#: a key asks for its password), or missing (storing one asks to choose a password for it).
KeyringState = Literal["unlocked", "locked", "missing"]


class KeyringTimeout(TimeoutError):
    """The keyring did not answer in time (its service hangs, or a prompt holds it)."""


class KeyringIsLocked(Exception):
    """The collection or the item is locked; reading it would have asked for a password."""


def timed(call: Callable[[], T], timeout: float | None = None) -> T:
    """``call()`` on a daemon thread, one keyring call at a time, waited for at most
    ``timeout`` seconds (READ_TIMEOUT; then KeyringTimeout: the call ends on its own, its
    answer unused)."""
    timeout = READ_TIMEOUT if timeout is None else timeout
    answer: list[tuple[bool, Any]] = []
    done = threading.Event()

    def run() -> None:
        try:
            if not ONE_AT_A_TIME.acquire(timeout=timeout):
                raise KeyringTimeout("another keyring call is still waiting")
            try:
                answer.append((True, call()))
            finally:
                ONE_AT_A_TIME.release()
        except BaseException as exc:  # handed to the caller as it is
            answer.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=run, name="metona-keyring", daemon=True).start()
    if not done.wait(timeout) or not answer:
        raise KeyringTimeout(f"the keyring did not answer within {timeout:g} s")
    ok, value = answer[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value


def is_secret_service(backend: Any) -> bool:
    """Whether ``backend`` is keyring's Secret Service backend (read here without it)."""
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}" == "keyring.backends.SecretService.Keyring"


def _collection(backend: Any, bus: Any) -> Any | None:
    """The collection keyring stores in, or None when the session has none yet."""
    import secretstorage
    from secretstorage.exceptions import ItemNotFoundException

    path = getattr(backend, "preferred_collection", None)
    try:
        return secretstorage.Collection(bus, path) if path else secretstorage.Collection(bus)
    except ItemNotFoundException:  # no default alias: a fresh session, nothing stored
        return None


def read_secret_service(backend: Any, service: str, username: str) -> str | None:
    """The secret keyring stored for (service, username), read without creating a collection
    or unlocking one: None when there is none; KeyringIsLocked when it is locked."""
    import secretstorage

    query = {"service": service, "username": username}
    make_query = getattr(backend, "_query", None)  # keyring's scheme (attribute names)
    if callable(make_query):
        query = make_query(service, username)
    with closing(secretstorage.dbus_init()) as bus:
        collection = _collection(backend, bus)
        if collection is None:
            return None
        if collection.is_locked():
            raise KeyringIsLocked("the keyring is locked")
        for item in collection.search_items(query):
            if item.is_locked():
                raise KeyringIsLocked("the keyring entry is locked")
            return str(item.get_secret().decode("utf-8"))
    return None


def default_keyring_state(backend: Any) -> KeyringState | None:
    """The Secret Service's collection keyring stores in, looked at without a prompt."""
    import secretstorage

    with closing(secretstorage.dbus_init()) as bus:
        collection = _collection(backend, bus)
        if collection is None:
            return "missing"
        return "locked" if collection.is_locked() else "unlocked"


def unlock_default(backend: Any, timeout: float = UNLOCK_TIMEOUT) -> bool:
    """Ask the user to unlock the collection keyring stores in (the Secret Service's own
    password prompt, waited for at most ``timeout``); True when it is unlocked afterwards."""
    import secretstorage

    with closing(secretstorage.dbus_init()) as bus:
        collection = _collection(backend, bus)
        if collection is None:
            return False
        if collection.is_locked():
            collection.unlock(timeout=timeout)
        return not collection.is_locked()
