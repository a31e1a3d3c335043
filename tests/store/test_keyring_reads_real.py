"""Reading a key never asks the user: with the real gnome-keyring, a session with no keyring
yet gets none created, a locked one stays locked and says so, and a keyring that does not
answer costs the reader a few seconds, never its start."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import secretstorage

from tests.support.secret_service import connect, restore_keyring, running_keyring, use_keyring
from tray_app.store import keyring_calls
from tray_app.store.keyring_calls import KeyringTimeout, timed
from tray_app.store.secrets import LOCKED, UNAVAILABLE, SecretStore, SecretUnreadable

ENDPOINT = "https://api.example.test/v1"
KEY = "sk-read-" + "k" * 30


def collections(address: str) -> list[tuple[str, bool]]:
    with connect(address) as bus:
        return [(c.collection_path, c.is_locked()) for c in secretstorage.get_all_collections(bus)]


def test_a_session_with_no_keyring_yet_gets_none_created_by_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_keyring(tmp_path / "own", unlock=False) as daemon:
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            store = SecretStore()
            assert store.usable and store.get(ENDPOINT) is None
            assert store.read(ENDPOINT) is None  # nothing stored: nothing to say
            assert store.keyring_state() == "missing"  # storing one would ask for a password
            store.delete(ENDPOINT)  # none to remove: no keyring is created to remove it from
            assert store.usable and store.keyring_state() == "missing"
            assert [path for path, _ in collections(daemon.address)] == [
                "/org/freedesktop/secrets/collection/session"
            ]
        finally:
            restore_keyring(previous)


def test_a_locked_keyring_is_read_without_asking_and_says_it_is_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_keyring(tmp_path / "own") as daemon:
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            SecretStore().set(ENDPOINT, KEY)
            with connect(daemon.address) as bus:
                secretstorage.Collection(bus).lock()
            store = SecretStore()
            with pytest.raises(SecretUnreadable) as caught:
                store.read(ENDPOINT)
            assert caught.value.problem == LOCKED and "Locked" in str(caught.value)
            assert store.get(ENDPOINT) is None
            assert store.usable  # still the keyring: storing a key asks to unlock it
            assert store.keyring_state() == "locked"
            assert [locked for path, locked in collections(daemon.address) if "login" in path] == [
                True
            ]
        finally:
            restore_keyring(previous)


class HangingKeyring:
    """A backend whose reads never come back (a Secret Service that stopped answering)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def get_password(self, service: str, username: str) -> Any:
        self.release.wait(30)
        return None


def test_a_keyring_that_does_not_answer_costs_the_reader_its_timeout_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(keyring_calls, "READ_TIMEOUT", 0.3)
    backend = HangingKeyring()
    store = SecretStore(backend)
    try:
        with pytest.raises(SecretUnreadable) as caught:
            store.read(ENDPOINT)
        assert caught.value.problem == UNAVAILABLE
        assert store.usable  # not given up on: the next read tries again
    finally:
        backend.release.set()
    assert timed(lambda: 5, timeout=10) == 5  # the one-call-at-a-time lock came back


def test_timed_hands_back_the_calls_error() -> None:
    def fails() -> None:
        raise KeyError("no")

    with pytest.raises(KeyError):
        timed(fails)
    with pytest.raises(KeyringTimeout):
        timed(lambda: threading.Event().wait(1), timeout=0.05)
