"""API keys: kept in the keyring, or in memory for the session, never on disk in clear."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest
from keyrings.alt.file import PlaintextKeyring

from tray_app.base.paths import AppPaths
from tray_app.store.secrets import SERVICE, SecretStore
from tray_app.store.settings import Settings, save_settings

KEY = "sk-test-7f3a9c1e5b2d4f60"
ENDPOINT = "https://api.example.test/v1"


class FileKeyring(keyring.backend.KeyringBackend):  # type: ignore[misc]
    """A keyring in one JSON file of the test's choosing (stands in for the OS keyring)."""

    priority = 1

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def _load(self) -> dict[str, str]:
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}|{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data[f"{service}|{username}"] = password
        self.path.write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}|{username}", None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
        self.path.write_text(json.dumps(data))


class BrokenKeyring(FileKeyring):
    """A backend that fails like a keyring with no D-Bus session does."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError(f"cannot store {password}: no session bus")


def files_containing(root: Path, text: str) -> list[Path]:
    needle = text.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.fixture
def keyring_file(tmp_path: Path) -> Path:
    return tmp_path / "keyring" / "keys.json"


@pytest.fixture
def global_keyring(keyring_file: Path) -> Iterator[FileKeyring]:
    """Install the file keyring as keyring's default, as the app would find the OS one."""
    keyring_file.parent.mkdir()
    previous = keyring.get_keyring()
    backend = FileKeyring(keyring_file)
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_a_key_goes_to_the_keyring_and_nowhere_else(
    global_keyring: FileKeyring,
    keyring_file: Path,
    app_paths: AppPaths,
    metona_home: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secrets = SecretStore()
    assert secrets.usable and secrets.reason is None
    assert secrets.backend_name.endswith("FileKeyring")
    save_settings(Settings(endpoint=ENDPOINT, provider="openai"), app_paths.settings_file)
    secrets.set(ENDPOINT + "/", f"  {KEY}\n")
    assert secrets.get(ENDPOINT) == KEY
    assert SecretStore().get(ENDPOINT) == KEY  # survives: it is in the keyring
    assert global_keyring.get_password(SERVICE, ENDPOINT) == KEY
    assert files_containing(keyring_file.parent, KEY) == [keyring_file]
    assert files_containing(metona_home, KEY) == []
    assert KEY not in caplog.text
    secrets.delete(ENDPOINT)
    secrets.delete(ENDPOINT)  # deleting twice is fine
    assert SecretStore().get(ENDPOINT) is None


def test_with_no_backend_the_key_lives_for_the_session_only(
    metona_home: Path, app_paths: AppPaths
) -> None:
    secrets = SecretStore(keyring.backends.fail.Keyring())
    assert not secrets.usable
    assert secrets.reason and "no keyring backend" in secrets.reason
    secrets.set(ENDPOINT, KEY)
    save_settings(Settings(endpoint=ENDPOINT), app_paths.settings_file)
    assert secrets.get(ENDPOINT) == KEY
    assert SecretStore(keyring.backends.fail.Keyring()).get(ENDPOINT) is None
    assert files_containing(metona_home, KEY) == []
    secrets.set(ENDPOINT, "")
    assert secrets.get(ENDPOINT) is None


def test_a_failing_backend_falls_back_to_memory_without_logging_the_key(
    keyring_file: Path, metona_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    keyring_file.parent.mkdir()
    secrets = SecretStore(BrokenKeyring(keyring_file))
    assert secrets.usable
    secrets.set(ENDPOINT, KEY)
    assert not secrets.usable
    assert secrets.reason and "PasswordSetError" in secrets.reason
    assert KEY not in secrets.reason and KEY not in caplog.text
    assert "for this session only" in caplog.text
    assert secrets.get(ENDPOINT) == KEY
    assert not keyring_file.exists()
    assert files_containing(metona_home, KEY) == []


def test_a_plaintext_file_backend_is_not_trusted_by_default(tmp_path: Path) -> None:
    plain = PlaintextKeyring()
    plain.file_path = str(tmp_path / "plain.cfg")
    refused = SecretStore(plain)
    assert not refused.usable
    assert refused.reason and "clear text" in refused.reason
    refused.set(ENDPOINT, KEY)
    assert not (tmp_path / "plain.cfg").exists()

    allowed = SecretStore(plain, allow_insecure=True)
    allowed.set(ENDPOINT, KEY)
    assert allowed.usable and SecretStore(plain, allow_insecure=True).get(ENDPOINT) == KEY


def test_a_chain_skips_backends_it_must_not_use(keyring_file: Path, tmp_path: Path) -> None:
    keyring_file.parent.mkdir()
    plain = PlaintextKeyring()
    plain.file_path = str(tmp_path / "plain.cfg")

    class Chain:
        def __init__(self, backends: list[Any]) -> None:
            self.backends = backends

    secrets = SecretStore(
        Chain([keyring.backends.fail.Keyring(), plain, FileKeyring(keyring_file)])
    )
    assert secrets.usable and secrets.backend_name.endswith("FileKeyring")
    secrets.set(ENDPOINT, KEY)
    assert files_containing(tmp_path, KEY) == [keyring_file]
