"""A keyring backend for the tests that keeps secrets in a JSON file named by
``METONA_TEST_KEYRING``: selected with keyring's own ``PYTHON_KEYRING_BACKEND`` variable, so a
``metona-tray`` subprocess reads the secrets the test stored, through the keyring library as
the app always does (the machine running the tests has no desktop keyring daemon)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

BACKEND = "tests.mcp.http_keyring.FileKeyring"


class FileKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def _file(self) -> Path:
        return Path(os.environ["METONA_TEST_KEYRING"])

    def _read(self) -> dict[str, str]:
        path = self._file()
        return dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._read().get(f"{service}\n{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._read()
        data[f"{service}\n{username}"] = password
        self._file().write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    def delete_password(self, service: str, username: str) -> None:
        data = self._read()
        if data.pop(f"{service}\n{username}", None) is None:
            raise PasswordDeleteError(username)
        self._file().write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
