"""API keys in the real OS keyring: gnome-keyring-daemon's Secret Service on a private D-Bus
session bus (tests/secret_service.py), which keyring picks by itself, as on a user's desktop."""

from __future__ import annotations

from pathlib import Path

from tests.secret_service import KeyringDaemon, stored
from tray_app.store.secrets import SERVICE, SecretStore

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
