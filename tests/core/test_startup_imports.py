"""Start-up imports only what each entry point needs: keyring, the OpenAI provider,
export, the shell tools and the undo journal load on first use; a client for a plain-http local
server loads no CA bundle. Checked in a fresh interpreter, whose module list cannot lie."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys

import pytest

from tray_app.providers._http import make_client

LAZY = [
    "keyring",
    "tray_app.providers.openai",
    "tray_app.store.export",
    "tray_app.tools.builtin.shell",
    "tray_app.tools.journal.journal",
    "mcp",  # the MCP SDK: only when a server is configured
    "tray_app.mcp.manager",
]


def loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_core_and_terminal_import_without_the_on_demand_parts() -> None:
    modules = loaded_after(
        "import tray_app.cli.cli, tray_app.cli.terminal, tray_app.core.bootstrap"
    )
    assert "tray_app.core.service" in modules  # the probe really imported the core
    assert [m for m in LAZY if m in modules] == []


def test_the_on_demand_parts_still_load_when_used() -> None:
    code = (
        "from tray_app.providers.factory import make_provider\n"
        "make_provider('openai', 'https://example.invalid/v1', api_key='k')\n"
    )
    assert "tray_app.providers.openai" in loaded_after(code)


def _verify_mode(client: object) -> ssl.VerifyMode:
    pool = client._transport._pool  # type: ignore[attr-defined]
    return pool._ssl_context.verify_mode  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("endpoint", "verified"),
    [
        ("http://127.0.0.1:11434", False),
        ("http://localhost:11434", False),
        ("http://[::1]:11434", False),
        ("https://127.0.0.1:11434", True),
        ("http://192.168.1.20:11434", True),  # a proxy may apply: keep the default
        ("https://api.example.com/v1", True),
    ],
)
def test_tls_verification_is_dropped_only_for_plain_http_to_this_machine(
    endpoint: str, verified: bool
) -> None:
    client = make_client(endpoint, 30.0)
    want = ssl.CERT_REQUIRED if verified else ssl.CERT_NONE
    assert _verify_mode(client) == want
