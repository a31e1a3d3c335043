"""The OS keyring in the real app under Xvfb: gnome-keyring-daemon runs in the desktop's D-Bus
session (tests/e2e/desktop_env.py) and keyring finds it by itself. A secret stored for an MCP
server in the popup's form (the real window, in Chinese) reaches the server, is in the Secret
Service and in no file, and a new launch of the app reads it from there."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama
from tests.mcp.conftest import fake_entry
from tests.support.secret_service import forget, stored
from tray_app.store.secrets import SERVICE

pytestmark = [pytest.mark.gui, pytest.mark.timeout(300)]

SERVER = "本地 工具"
NAME = f"{SERVER}.FAKE_MCP_TOKEN"
SECRET = "钥匙 🔑 \u202eexe.txt " + "k" * 500


@pytest.fixture
def keyring_desktop(desktop: DesktopEnv) -> Iterator[DesktopEnv]:
    if desktop.keyring is None:
        pytest.skip("gnome-keyring-daemon is missing (scripts/install-test-deps.sh installs it)")
    yield desktop
    forget(desktop.bus_address, {"service": SERVICE})


def token_marks(marks: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in marks.glob("token-*")]


def ready(app: AppProcess) -> Any:
    return any(s["name"] == SERVER and s["status"] == "ready" for s in app.core("mcp_status"))


def store_in_the_popup(app: AppProcess) -> str:
    """Settings › Tool servers › the server's form › "Store a secret in the system keyring",
    in the real window: type the variable and the secret, store, save; the note it shows."""
    app.send("show")
    wait_for(lambda: app.state()["visible"], 15, "the popup")
    wait_for(
        lambda: app.eval_js("document.querySelector('#app').dataset.checked === 'true'"),
        30,
        "the page",
    )
    app.eval_js("(document.querySelector('#btn-settings').click(), 1)")
    row = f'.mcp-server[data-name="{SERVER}"]'
    edit = f"document.querySelector({json.dumps(row + ' .mcp-edit')})"
    wait_for(lambda: app.eval_js(f"!!{edit}"), 30, "the server's row")
    app.eval_js(f"({edit}.click(), 1)")
    wait_for(lambda: app.eval_js("!!document.querySelector('#mcp-secret-key')"), 15, "the form")
    app.eval_js(
        "(() => { document.querySelector('.mcp-secret').open = true;"
        " const put = (id, text) => { const box = document.getElementById(id);"
        " box.value = text; box.dispatchEvent(new Event('input', { bubbles: true })); };"
        f" put('mcp-secret-key', 'FAKE_MCP_TOKEN'); put('mcp-secret-value', {json.dumps(SECRET)});"
        " document.getElementById('mcp-secret-store').click(); return 1; })()"
    )
    note = wait_for(
        lambda: app.eval_js(
            "(() => { const n = document.getElementById('mcp-secret-note');"
            " return n && !n.hidden ? n.textContent : null; })()"
        ),
        30,
        "the keyring's answer",
    )
    app.eval_js("(document.getElementById('mcp-save').click(), 1)")
    return str(note)


def test_a_server_secret_is_kept_in_the_desktop_keyring_across_launches(
    keyring_desktop: DesktopEnv, fake: FakeOllama, workspace: Path, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    entry = fake_entry(
        marks, env={"FAKE_MCP_MARKS": str(marks), "FAKE_MCP_TOKEN": f"keyring:{NAME}"}
    )
    settings = {
        "endpoint": fake.url,
        "default_model": "qwen3:8b",
        "allowed_dirs": [str(workspace)],
        "language": "zh-CN",
        "mcp_servers": {SERVER: entry},
    }
    (home / "config" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    first = AppProcess(keyring_desktop, home, name="keyring-first").start()
    try:
        shown = first.core("keyring_status")
        assert shown == {"usable": True, "problem": None, "state": "unlocked"}
        note = store_in_the_popup(first)
        assert note == f"已保存。FAKE_MCP_TOKEN 现在引用 keyring:{NAME}。"  # no "session only"
        wait_for(lambda: ready(first), 90, "the server with its secret")
        assert token_marks(marks) == [SECRET]
        page = first.eval_js(
            "document.documentElement.outerHTML + JSON.stringify(localStorage) + "
            "[...document.querySelectorAll('input, textarea')].map((e) => e.value).join()"
        )
        assert SECRET[:20] not in page
        keyring_desktop.screenshot("keyring-stored")
    finally:
        first.stop()
    user = f"mcp:{NAME}"
    assert stored(keyring_desktop.bus_address, {"service": SERVICE, "username": user}) == [SECRET]

    for mark in marks.glob("token-*"):
        mark.unlink()
    second = AppProcess(keyring_desktop, home, name="keyring-second").start()
    try:
        wait_for(lambda: ready(second), 90, "the server on the next launch")
        assert token_marks(marks) == [SECRET]  # read back from the keyring, nowhere else
    finally:
        second.stop()
    needle = SECRET.encode()[:40]
    assert [p for p in home.rglob("*") if p.is_file() and needle in p.read_bytes()] == []
