"""``metona-tray chat`` and the real keyring: a key the settings say is stored is read from
the Secret Service without a prompt; when that keyring is locked the chat ends with the
server's refusal (no key) instead of waiting on an unlock prompt, and the keyring stays as
it was."""

from __future__ import annotations

import json
from pathlib import Path

import secretstorage

from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import text_turn
from tests.support.secret_service import connect, running_keyring
from tests.support.terminal_rig import Cli

KEY = "sk-terminal-" + "k" * 30
MODEL = "gpt-test"


def test_chat_reads_a_stored_key_and_never_waits_on_a_locked_keyring(
    cli: Cli, metona_home: Path, tmp_path: Path
) -> None:
    with (
        running_keyring(tmp_path / "own") as daemon,
        FakeOpenAI({MODEL: ["completion", "tools"]}, api_key=KEY) as fake,
    ):
        endpoint = fake.url.rstrip("/")
        with connect(daemon.address) as bus:
            attributes = {"service": "metona-tray", "username": endpoint}
            secretstorage.Collection(bus).create_item("key", attributes, KEY.encode())
        settings = {
            "provider": "openai", "endpoint": endpoint, "default_model": MODEL,
            "api_key_endpoints": [endpoint], "tools_enabled": False,
        }  # fmt: skip
        config = metona_home / "config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        cli.env.update(
            DBUS_SESSION_BUS_ADDRESS=daemon.address, XDG_CONFIG_HOME=str(tmp_path / "xdg")
        )
        cli.env.pop("PYTHON_KEYRING_BACKEND", None)

        fake.script(text_turn("钥匙可用 🔑"))
        done = cli.run("chat", "你好")
        assert done.returncode == 0, done.stderr
        assert "钥匙可用 🔑" in done.stdout

        with connect(daemon.address) as bus:
            secretstorage.Collection(bus).lock()
        refused = cli.run("chat", "再来一次", timeout=60)
        assert refused.returncode != 0
        assert KEY not in refused.stdout + refused.stderr
        with connect(daemon.address) as bus:  # read without asking: still locked
            assert secretstorage.Collection(bus).is_locked()
