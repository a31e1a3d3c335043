"""Settings › Tool servers › "Store a secret in the system keyring" in a real browser through the
real bridge and Core, with the real OS keyring (gnome-keyring-daemon's Secret Service on a
private D-Bus session, tests/support/secret_service.py): the secret goes to the daemon and the
server gets it; with the daemon stopped the page says so in Chinese, the server still gets the
secret for this session, and the secret is never on the page or in a file; with the keyring
locked the API key field says to unlock it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import secretstorage
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.mcp.conftest import ROOT
from tests.support.secret_service import (
    KeyringDaemon,
    connect,
    restore_keyring,
    running_keyring,
    stored,
    use_keyring,
)
from tests.support.waiting import eventually
from tests.web.conftest import App, AppFactory
from tray_app.store.secrets import SERVICE, SecretStore

pytestmark = pytest.mark.web

SERVER = "本地 服务"
REFERENCE = f"keyring:{SERVER}.FAKE_MCP_TOKEN"
SECRET = "令牌 🔑 \u202eexe.txt " + "z" * 300


def add_server_with_a_secret(app: App, marks: Path) -> Any:
    """Fill the server form and store FAKE_MCP_TOKEN through the keyring box (not saved yet)."""
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    page.click("#mcp-add")
    page.fill("#mcp-f-name", SERVER)
    page.fill("#mcp-f-command", sys.executable)
    page.fill("#mcp-f-args", "-m\ntests.mcp.fake_server")
    page.fill("#mcp-f-cwd", str(ROOT))
    page.fill("#mcp-f-env", f"FAKE_MCP_MARKS={marks}")
    page.locator(".mcp-secret summary").click()
    page.fill("#mcp-secret-key", "FAKE_MCP_TOKEN")
    page.fill("#mcp-secret-value", SECRET)
    page.click("#mcp-secret-store")
    return page.locator("#mcp-secret-note")


def save_and_wait_for_the_token(app: App, marks: Path) -> None:
    page = app.page
    expect(page.locator("#mcp-f-env")).to_have_value(
        f"FAKE_MCP_MARKS={marks}\nFAKE_MCP_TOKEN={REFERENCE}"
    )
    page.click("#mcp-save")
    eventually(lambda: list(marks.glob("token-*")), 60, "the server to start with its secret")
    (token,) = marks.glob("token-*")
    assert token.read_text(encoding="utf-8") == SECRET


def assert_never_shown(app: App, home: Path) -> None:
    page = app.page
    assert SECRET[:20] not in page.content()
    assert SECRET[:20] not in page.evaluate(
        "JSON.stringify(localStorage) + document.body.innerText"
    )
    needle = SECRET.encode()[:40]
    assert [p for p in home.rglob("*") if p.is_file() and needle in p.read_bytes()] == []
    assert app.page_errors == [] and app.dialogs == []


def test_a_secret_stored_in_the_popup_goes_to_the_secret_service(
    make_app: AppFactory,
    fake_ollama: FakeOllama,
    real_keyring: KeyringDaemon,
    tmp_path: Path,
    metona_home: Path,
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    app = make_app(fake_ollama, secrets=SecretStore)
    note = add_server_with_a_secret(app, marks)
    expect(note).to_have_text(f"Stored. FAKE_MCP_TOKEN now refers to {REFERENCE}.")
    user = f"mcp:{SERVER}.FAKE_MCP_TOKEN"
    assert stored(real_keyring.address, {"service": SERVICE, "username": user}) == [SECRET]
    save_and_wait_for_the_token(app, marks)
    assert_never_shown(app, metona_home)


def test_with_the_keyring_daemon_stopped_the_page_says_so_in_chinese(
    make_app: AppFactory,
    fake_ollama: FakeOllama,
    tmp_path: Path,
    metona_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    with running_keyring(tmp_path / "own") as daemon:  # stopped below: not the shared one
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            app = make_app(fake_ollama, language="zh-CN", secrets=SecretStore)
            assert app.core.keyring_status()["usable"] is True  # opened while it ran
            daemon.stop()
            note = add_server_with_a_secret(app, marks)
            expect(note).to_have_text(
                f"已保存。FAKE_MCP_TOKEN 现在引用 {REFERENCE}。 "
                "系统密钥环服务未运行或已停止响应。密钥只保留到应用退出：密钥环可用后请重新保存。"
            )
            settings = app.core.get_settings()
            assert settings["keyring_usable"] is False
            assert settings["keyring_problem"] == "unavailable"
            save_and_wait_for_the_token(app, marks)  # kept in memory for this session
            assert_never_shown(app, metona_home)
        finally:
            restore_keyring(previous)


def test_with_the_keyring_locked_the_api_key_field_says_saving_asks_in_chinese(
    make_app: AppFactory,
    fake_ollama: FakeOllama,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with running_keyring(tmp_path / "own") as daemon:  # locked below: not the shared one
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            with connect(daemon.address) as bus:
                secretstorage.Collection(bus).lock()
            app = make_app(fake_ollama, language="zh-CN", secrets=SecretStore)
            app.page.click("#btn-settings")
            note = app.page.locator(":has(> #set-api_key) .note")
            expect(note).to_have_text("系统密钥环已锁定：保存密钥时会请求它的密码。")
            status = app.core.keyring_status()
            assert status == {"usable": True, "problem": None, "state": "locked"}
            with connect(daemon.address) as bus:  # looked at, never asked to unlock
                assert secretstorage.Collection(bus).is_locked()
            # saving asks; here no prompt can show, as if the user closed it: said at once
            app.page.fill("#set-api_key", "sk-test")
            app.page.press("#set-api_key", "Enter")
            expect(app.page.locator("#settings")).to_contain_text(
                "系统密钥环已锁定：在此输入的 API 密钥只保留到应用退出，绝不写入磁盘。"
            )
            assert app.page_errors == [] and app.dialogs == []
        finally:
            restore_keyring(previous)


def test_a_server_whose_secret_the_gone_keyring_holds_says_so_in_chinese(
    make_app: AppFactory,
    fake_ollama: FakeOllama,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp.fake_server"],
        "cwd": str(ROOT),
        "env": {"FAKE_MCP_MARKS": str(marks), "FAKE_MCP_TOKEN": REFERENCE},
    }
    with running_keyring(tmp_path / "own") as daemon:
        previous = use_keyring(daemon, monkeypatch, tmp_path / "xdg-config")
        try:
            SecretStore().set(f"mcp:{SERVER}.FAKE_MCP_TOKEN", SECRET)  # stored last session
            daemon.stop()
            app = make_app(
                fake_ollama, language="zh-CN", secrets=SecretStore, mcp_servers={SERVER: entry}
            )
            app.page.click("#btn-settings")
            row = app.page.locator(f'.mcp-server[data-name="{SERVER}"]')
            expect(row.locator(".mcp-error-why")).to_have_text(
                "它需要的密钥在系统密钥环中，但现在无法读取（已锁定或服务未运行）。"
                "再次保存该服务器时会请求密钥环的密码；若服务未运行，请启动它后重新启动本应用。",
                timeout=60_000,
            )
            expect(row.locator(".mcp-error-text")).to_contain_text("cannot be read")
            assert list(marks.glob("token-*")) == []
            assert SECRET[:20] not in app.page.content()
            assert app.page_errors == [] and app.dialogs == []
        finally:
            restore_keyring(previous)
