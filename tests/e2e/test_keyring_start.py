"""The app starts, and its popup and Settings open, without waiting on the OS keyring or
asking for it, whatever the session's keyring is: none at all, a Secret Service with no
keyring yet (a new account: gnome-keyring activated by the bus, no login keyring), a login
keyring nobody unlocked, or an unlocked one. Only saving a key may ask, and the Settings page
says so before. The real app under Xvfb; prompts are looked for as gcr-prompter processes and
windows on the desktop, where they would draw."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.app_setup import app_home, app_settings
from tests.e2e.conftest import ARTIFACTS, _why_not
from tests.e2e.desktop_env import AppProcess, Child, DesktopEnv, wait_for
from tests.fakes.openai_server import FakeOpenAI
from tests.mcp.conftest import fake_entry
from tests.support.secret_service import DAEMON, TEST_PASSWORD, connect

pytestmark = [pytest.mark.gui, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-test-" + "k" * 40  # a header carries it: ASCII
MODEL = "gpt-test"
PASSWORD = "new-login-pw"
SERVER = "本地 工具"
NAME = f"{SERVER}.FAKE_MCP_TOKEN"
SECRET = "钥匙 🔑 \u202eexe.txt " + "s" * 200
#: Each session's keyring, the page's language there and the note Settings shows.
CASES = {
    "none": ("en", "set.api_key_no_keyring"),
    "fresh": ("zh-CN", "set.api_key_keyring_new"),
    "locked": ("en", "set.api_key_keyring_asks"),
    "unlocked": ("zh-CN", None),
}
#: "In seconds": far below what a prompt nobody answers would hold, with room for a slow CI.
READY = 30


def words(language: str) -> dict[str, str]:
    path = ROOT / "web" / "locales" / f"{language}.json"
    loaded: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI({MODEL: ["completion", "tools"]}, api_key=KEY) as server:
        yield server


@pytest.fixture(params=list(CASES))
def session(
    request: pytest.FixtureRequest, tmp_path: Path, openai: FakeOpenAI
) -> Iterator[DesktopEnv]:
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    kind = request.param
    if kind != "none" and shutil.which(DAEMON) is None:
        pytest.skip("gnome-keyring-daemon is missing (scripts/install-test-deps.sh installs it)")
    kept = {openai.url.rstrip("/"): KEY, f"mcp:{NAME}": SECRET}
    secrets = kept if kind == "locked" else None
    desktop = DesktopEnv(tmp_path / "desktop", ARTIFACTS, keyring=kind, login_secrets=secrets)
    (tmp_path / "desktop").mkdir()
    desktop.start()
    try:
        if kind == "unlocked":  # a key stored in an earlier session, in the open keyring
            store(desktop, openai.url.rstrip("/"), KEY)
        yield desktop
    finally:
        desktop.stop()


def store(desktop: DesktopEnv, user: str, secret: str) -> None:
    import secretstorage

    with connect(desktop.bus_address) as bus:
        attributes = {"service": "metona-tray", "username": user}
        secretstorage.Collection(bus).create_item(user, attributes, secret.encode(), replace=True)


def stored(desktop: DesktopEnv, user: str) -> list[str]:
    from tests.support.secret_service import stored as in_service

    return in_service(desktop.bus_address, {"service": "metona-tray", "username": user})


def collections(desktop: DesktopEnv) -> list[tuple[str, bool]]:
    """The Secret Service's collections (path, locked), read past the app."""
    import secretstorage

    with connect(desktop.bus_address) as bus:
        return [(c.collection_path, c.is_locked()) for c in secretstorage.get_all_collections(bus)]


def no_prompt(desktop: DesktopEnv) -> None:
    assert not desktop.prompter_running(), "a keyring prompt was started"
    assert desktop.prompt_windows() == [], "a keyring prompt is on the screen"


def launch(desktop: DesktopEnv, home: Path, name: str) -> AppProcess:
    """Start the app and wait for its tray icon and hotkey, at most READY seconds."""
    app = AppProcess(desktop, home, name=name)
    app.child = Child(name, app.launch())
    wait_for(app._ready, READY, "the tray icon and the hotkey", interval=0.1)
    return app


def open_popup(app: AppProcess) -> None:
    app.send("show")
    wait_for(lambda: app.state()["visible"], READY, "the popup")
    wait_for(
        lambda: app.eval_js("document.querySelector('#app').dataset.checked === 'true'"),
        READY,
        "the page",
    )


#: The note under the API key field, once it is on the screen (laid out, not hidden).
NOTE = (
    "(() => { const field = document.querySelector('#set-api_key')?.parentElement;"
    " const note = field && field.querySelector('.note');"
    " const box = note && note.getBoundingClientRect();"
    " return box && box.height > 0 ? note.textContent : null; })()"
)


def painted(app: AppProcess) -> None:
    """Wait until the page has drawn two frames since now (a screenshot then shows it)."""
    app.eval_js(
        "(window.__drawn = false, requestAnimationFrame(() => requestAnimationFrame(() => {"
        " window.__drawn = true; })), 1)"
    )
    wait_for(lambda: app.eval_js("window.__drawn === true"), READY, "the page to draw")


def test_start_popup_and_settings_never_wait_on_or_ask_for_the_keyring(
    session: DesktopEnv, openai: FakeOpenAI, workspace: Path, tmp_path: Path
) -> None:
    kind = session.keyring_kind
    language, note_key = CASES[kind]
    endpoint = openai.url.rstrip("/")
    has_key = kind in ("locked", "unlocked")
    settings = app_settings(
        endpoint,
        workspace,
        provider="openai",
        default_model=MODEL,
        language=language,
        api_key_endpoints=[endpoint] if has_key else [],
    )
    home = app_home(tmp_path, settings)
    app = launch(session, home, f"keyring-start-{kind}")
    try:
        no_prompt(session)
        open_popup(app)
        no_prompt(session)

        app.eval_js("(document.querySelector('#btn-settings').click(), 1)")
        status = wait_for(lambda: app.core("keyring_status"), READY, "the keyring's status")
        if note_key is None:
            assert status == {"usable": True, "problem": None, "state": "unlocked"}
            assert app.eval_js(NOTE) is None
        else:
            said = wait_for(lambda: app.eval_js(NOTE), READY, "the API key's note")
            assert said == words(language)[note_key]
        shown = app.core("get_settings")
        assert shown["api_key_set"] is has_key
        painted(app)
        session.screenshot(f"keyring-start-{kind}")
        if note_key is not None:
            assert app.eval_js(NOTE) == words(language)[note_key]  # still there
        no_prompt(session)

        models = app.core("list_models")  # the model server's key: read only where stored
        if kind == "unlocked":
            assert models["error"] is None and [m["name"] for m in models["models"]] == [MODEL]
        else:
            assert models["error"]  # no key (none stored, or the keyring is locked): a 401
        no_prompt(session)

        if kind == "locked":  # looked at, never asked to unlock
            kept = [locked for path, locked in collections(session) if "/session" not in path]
            assert kept and all(kept)
        if kind == "fresh":
            found = [path for path, _ in collections(session)]
            assert all(path.endswith("/session") for path in found), found  # none created
    finally:
        app.stop()
    no_prompt(session)


def save_key_in_the_page(app: AppProcess, key: str) -> None:
    app.eval_js(
        "(() => { const box = document.querySelector('#set-api_key');"
        f" box.value = {json.dumps(key)};"
        " box.dispatchEvent(new Event('change', { bubbles: true })); return 1; })()"
    )


@pytest.mark.parametrize("session", ["fresh"], indirect=True)
def test_on_a_new_session_only_saving_a_key_asks_to_create_the_keyring(
    session: DesktopEnv, openai: FakeOpenAI, workspace: Path, tmp_path: Path
) -> None:
    endpoint = openai.url.rstrip("/")
    settings = app_settings(endpoint, workspace, provider="openai", default_model=MODEL)
    app = launch(session, app_home(tmp_path, settings), "keyring-save-fresh")
    try:
        open_popup(app)
        app.eval_js("(document.querySelector('#btn-settings').click(), 1)")
        wait_for(lambda: app.eval_js(NOTE), READY, "the API key's note")
        no_prompt(session)
        save_key_in_the_page(app, KEY)
        windows: Any = wait_for(session.prompt_windows, READY, "the new keyring's prompt")
        session.screenshot("keyring-save-fresh-prompt")
        session.xdotool("windowactivate", "--sync", windows[0], check=False)
        # the user chooses the new keyring's password: typed, confirmed, Continue
        session.xdotool("type", "--delay", "30", PASSWORD)
        session.xdotool("key", "Tab")
        session.xdotool("type", "--delay", "30", PASSWORD)
        session.xdotool("key", "Return")
        wait_for(lambda: not session.prompt_windows(), READY, "the prompt to close")
        wait_for(lambda: app.core("get_settings")["api_key_set"], READY, "the key recorded")
        assert stored(session, endpoint) == [KEY]
        models = app.core("list_models")  # the provider took the new key
        assert models["error"] is None, models
    finally:
        app.stop()


def server_status(app: AppProcess) -> dict[str, Any]:
    rows = [s for s in app.core("mcp_status") if s["name"] == SERVER]
    return rows[0] if rows else {}


@pytest.mark.parametrize("session", ["locked"], indirect=True)
def test_a_tool_server_whose_secret_is_locked_away_asks_only_when_the_user_saves_it(
    session: DesktopEnv, openai: FakeOpenAI, workspace: Path, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {"FAKE_MCP_MARKS": str(marks), "FAKE_MCP_TOKEN": f"keyring:{NAME}"}
    entry = fake_entry(marks, env=env)
    settings = app_settings(
        openai.url.rstrip("/"), workspace, language="zh-CN", mcp_servers={SERVER: entry}
    )
    app = launch(session, app_home(tmp_path, settings), "keyring-server-locked")
    try:
        failed = wait_for(
            lambda: server_status(app).get("status") == "failed" and server_status(app),
            60,
            "the server to fail without its secret",
        )
        assert failed["error_code"] == "keyring_unreadable"
        no_prompt(session)  # the start read the keyring without asking

        saved: list[Any] = []
        changed = {SERVER: {**entry, "timeout_s": 45}}  # the user saves the server's form
        saving = threading.Thread(
            target=lambda: saved.append(app.core("update_settings", {"mcp_servers": changed}))
        )
        saving.start()
        windows: Any = wait_for(session.prompt_windows, READY, "the keyring's unlock prompt")
        session.screenshot("keyring-server-unlock-prompt")
        session.xdotool("windowactivate", "--sync", windows[0], check=False)
        session.xdotool("type", "--delay", "30", TEST_PASSWORD)
        session.xdotool("key", "Return")
        saving.join(READY)
        assert saved, "saving the server did not finish"
        wait_for(
            lambda: server_status(app).get("status") == "ready", 90, "the server with its secret"
        )
        tokens = [p.read_text(encoding="utf-8") for p in marks.glob("token-*")]
        assert tokens == [SECRET]
    finally:
        app.stop()
