"""API keys in the real OS keyring: gnome-keyring-daemon's Secret Service on a private D-Bus
session bus (tests/secret_service.py), which keyring picks by itself, as on a user's desktop."""

from __future__ import annotations

import threading
from pathlib import Path

import keyring
import pytest
import secretstorage

from tests.secret_service import KeyringDaemon, connect, running_keyring, stored, use_keyring
from tray_app.store.secrets import LOCKED, SERVICE, UNAVAILABLE, SecretStore

ENDPOINT = "http://127.0.0.1:11434/v1/"
KEY = "sk-密钥-🔑-\u202eexe.txt-" + "x" * 4000


def files_containing(root: Path, text: str) -> list[Path]:
    needle = text.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_key_goes_to_the_secret_service_and_survives_a_new_store(
    real_keyring: KeyringDaemon, metona_home: Path
) -> None:
    secrets = SecretStore()
    assert secrets.usable, secrets.reason
    assert secrets.backend_name == "keyring.backends.SecretService.Keyring"
    secrets.set(ENDPOINT, KEY)
    user = ENDPOINT.rstrip("/")
    assert stored(real_keyring.address, {"service": SERVICE, "username": user}) == [KEY]
    assert SecretStore().get(ENDPOINT) == KEY  # a new process would read it back
    assert files_containing(metona_home, KEY[:40]) == []  # the app wrote it nowhere

    SecretStore().set(ENDPOINT, "")  # an empty key deletes it
    assert stored(real_keyring.address, {"service": SERVICE, "username": user}) == []
    assert SecretStore().get(ENDPOINT) is None


def test_a_locked_keyring_then_a_stopped_daemon_keep_keys_for_the_session_and_say_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with running_keyring(tmp_path / "own") as daemon:  # this test locks and stops its own
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            opened = SecretStore()
            opened.set(ENDPOINT, KEY)
            assert opened.usable and opened.problem is None

            with connect(daemon.address) as bus:
                secretstorage.Collection(bus).lock()
            locked = SecretStore()
            locked.set("http://other.example/", KEY)
            assert not locked.usable and locked.problem == LOCKED
            assert locked.get("http://other.example/") == KEY  # for this session
            user = "http://other.example"
            assert stored(daemon.address, {"service": SERVICE, "username": user}) == []

            daemon.stop()
            gone = SecretStore()  # keyring judged the Secret Service present a moment ago
            assert not gone.usable and gone.problem == UNAVAILABLE and gone.reason
            opened.set(ENDPOINT, KEY + "2")
            assert not opened.usable and opened.problem == UNAVAILABLE
            assert opened.get(ENDPOINT) == KEY + "2"
        finally:
            keyring.set_keyring(previous)
    for store in (locked, gone, opened):
        assert KEY[:40] not in (store.reason or "")
    assert KEY[:40] not in caplog.text


def test_servers_reading_while_the_user_replaces_and_removes_a_key_keep_the_keyring(
    real_keyring: KeyringDaemon,
) -> None:
    """Servers starting (reads on their threads) while the user stores and removes a secret.
    Concurrent calls made gnome-keyring lose the entry mid-read or its default collection
    (then prompt), which turned the keyring off until a restart; one call at a time keeps it."""
    secrets = SecretStore()
    done = threading.Event()
    seen: set[str | None] = set()

    def read() -> None:
        while not done.is_set():
            seen.add(secrets.get(ENDPOINT))

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    try:
        for _ in range(40):
            secrets.set(ENDPOINT, KEY)
            secrets.delete(ENDPOINT)
            assert secrets.usable, secrets.reason
    finally:
        done.set()
        for reader in readers:
            reader.join(30)
    assert seen <= {None, KEY} and secrets.usable
