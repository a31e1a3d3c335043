"""API keys in the real OS keyring: gnome-keyring-daemon's Secret Service on a private D-Bus
session bus (tests/support/secret_service.py), which keyring picks by itself, as on a user's
desktop."""

from __future__ import annotations

from pathlib import Path

import pytest
import secretstorage

from tests.support.secret_service import (
    KeyringDaemon,
    connect,
    restore_keyring,
    running_keyring,
    stored,
    use_keyring,
)
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
            restore_keyring(previous)
    for store in (locked, gone, opened):
        assert KEY[:40] not in (store.reason or "")
    assert KEY[:40] not in caplog.text


def test_an_entry_removed_between_the_search_and_the_read_is_not_there(
    real_keyring: KeyringDaemon,
) -> None:
    """Another process (``mcp serve``, a terminal command) removes a secret just as a server
    here reads it: the Secret Service answers "no such item". It is not there -- the keyring
    still works (this turned every key session-only until a restart)."""
    secrets = SecretStore()
    secrets.set(ENDPOINT, KEY)
    read_secret = secretstorage.Item.get_secret

    def removed_first(item: secretstorage.Item) -> bytes:
        item.delete()  # in the daemon, between keyring's search and its read
        return read_secret(item)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secretstorage.Item, "get_secret", removed_first)
        assert secrets.get(ENDPOINT) is None
    assert secrets.usable, secrets.reason
    secrets.set(ENDPOINT, KEY)
    assert SecretStore().get(ENDPOINT) == KEY


def test_when_the_keyring_service_comes_back_the_next_key_stored_moves_all_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_keyring(tmp_path / "own") as daemon:
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        back: KeyringDaemon | None = None
        try:
            secrets = SecretStore()
            secrets.set("http://a.example", "key-a 🔑")
            daemon.stop()
            secrets.set("http://b.example", "key-b 密钥")
            assert not secrets.usable and secrets.problem == UNAVAILABLE

            # The service is back (restarted, the login keyring unlocked at login again).
            back = KeyringDaemon(daemon.address, daemon.folder).start()
            secrets.set("http://c.example", "key-c")
            assert secrets.usable and secrets.problem is None and secrets.reason is None
            fresh = SecretStore()  # what the next launch reads
            assert fresh.get("http://a.example") == "key-a 🔑"
            assert fresh.get("http://b.example") == "key-b 密钥"  # moved from memory
            assert fresh.get("http://c.example") == "key-c"
        finally:
            if back is not None:
                back.stop()
            restore_keyring(previous)
