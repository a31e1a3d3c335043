"""The keyring is opened for an API key only when one was stored: the settings record which
endpoints have one (never the key), so a start, the settings view and a chat with a server
that needs no key never touch it; an older settings file still finds a stored key."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI
from tests.store.test_secrets import FileKeyring
from tray_app.base.paths import AppPaths
from tray_app.core.service import Core
from tray_app.store.secrets import SecretStore
from tray_app.store.settings import Settings, load_settings

KEY = "sk-marker-" + "k" * 30


class Opened:
    """A keyring factory that counts how often the app opens the keyring."""

    def __init__(self, path: Path) -> None:
        self.backend = FileKeyring(path)
        self.count = 0

    def __call__(self) -> SecretStore:
        self.count += 1
        return SecretStore(self.backend)


def test_the_keyring_is_opened_only_once_a_key_is_stored_and_the_settings_say_so(
    app_paths: AppPaths, tmp_path: Path
) -> None:
    opened = Opened(tmp_path / "keys.json")
    with FakeOpenAI(api_key=KEY) as fake:
        settings = Settings(provider="openai", endpoint=fake.url, allowed_dirs=[str(tmp_path)])
        core = Core(settings=settings, paths=app_paths, secrets=opened).start()
        try:
            shown = core.get_settings()
            assert shown["api_key_set"] is False and shown["keyring_usable"] is None
            assert core.list_models()["error"]  # the server wants a key nobody stored
            assert opened.count == 0  # neither the view nor the model list opened it

            saved = core.set_api_key(KEY)
            assert saved["stored_in_keyring"] is True
            endpoint = core.settings.endpoint
            assert core.settings.api_key_endpoints == [endpoint]
            assert core.get_settings()["api_key_set"] is True
            assert core.list_models()["error"] is None  # the provider took the key
            written = app_paths.settings_file.read_text(encoding="utf-8")
            assert KEY not in written and endpoint in json.loads(written)["api_key_endpoints"]
        finally:
            core.stop()

        again = Opened(tmp_path / "keys.json")  # the next launch reads it: the file says so
        core = Core(
            settings=load_settings(app_paths.settings_file), paths=app_paths, secrets=again
        ).start()
        try:
            assert core.get_settings()["api_key_set"] is True and again.count == 0
            assert core.list_models()["error"] is None and again.count == 1
            core.set_api_key("")  # removed: no longer marked, no longer read
            assert core.settings.api_key_endpoints == []
            assert again.backend.get_password("metona-tray", endpoint) is None
        finally:
            core.stop()


def test_a_key_kept_for_the_session_only_is_not_marked(app_paths: AppPaths, tmp_path: Path) -> None:
    import keyring.backends.fail

    with FakeOpenAI(api_key=KEY) as fake:
        settings = Settings(provider="openai", endpoint=fake.url, allowed_dirs=[str(tmp_path)])
        core = Core(
            settings=settings,
            paths=app_paths,
            secrets=lambda: SecretStore(keyring.backends.fail.Keyring()),
        ).start()
        try:
            saved = core.set_api_key(KEY)
            assert saved["stored_in_keyring"] is False and saved["problem"] == "no_keyring"
            assert core.settings.api_key_endpoints == []  # the next launch has nothing to read
            assert core.get_settings()["api_key_set"] is True  # this session has it
            assert core.list_models()["error"] is None
        finally:
            core.stop()


def test_an_older_settings_file_marks_the_endpoint_of_an_openai_compatible_server(
    tmp_path: Path,
) -> None:
    path = tmp_path / "settings.json"
    older = {"version": 1, "provider": "openai", "endpoint": "https://api.example.test/v1/"}
    path.write_text(json.dumps(older), encoding="utf-8")
    assert load_settings(path).api_key_endpoints == ["https://api.example.test/v1"]

    path.write_text(json.dumps({"version": 1, "provider": "ollama"}), encoding="utf-8")
    assert load_settings(path).api_key_endpoints == []  # Ollama: nothing to look up

    current = {**older, "api_key_endpoints": []}  # written by this version: as it says
    path.write_text(json.dumps(current), encoding="utf-8")
    assert load_settings(path).api_key_endpoints == []
