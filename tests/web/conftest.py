"""Fixtures for the page tests: one headless Chromium per worker, and per test a real Core
(against the fake Ollama and real file tools) served to a fresh page by the test harness."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.web_harness import PageHarness
from tray_app.base.paths import AppPaths
from tray_app.core.service import Core
from tray_app.store.settings import Settings

CHROMIUM = Path(os.environ.get("METONA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "web"
EN = json.loads((REPO / "web" / "locales" / "en.json").read_text(encoding="utf-8"))

# Records what the page must never do: CSP violations and dialogs (alert/confirm/prompt).
WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium per test module. Not per session: Playwright's sync API keeps an event loop
    running in this thread while it is open, and an async test that a worker runs later would
    fail with "cannot be called from a running event loop"."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: run scripts/install-test-deps.sh as root")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # launch() starts from a fresh temporary profile every time.
        instance = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield instance
        instance.close()


@dataclass
class App:
    """Everything one page test touches."""

    core: Core
    harness: PageHarness
    page: Any
    fake: FakeOllama | None
    workspace: Path
    paths: AppPaths
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def send(self, text: str) -> None:
        from playwright.sync_api import expect

        # Enter is ignored while the chat still answers (Send shows Stop): wait like a user.
        expect(self.page.locator("#btn-send")).to_be_visible()
        self.page.fill("#prompt", text)
        self.page.press("#prompt", "Enter")

    def wait_ready(self) -> None:
        self.page.wait_for_selector('#app[data-checked="true"]')

    def reload(self) -> None:
        self.page.reload()
        self.wait_ready()

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), animations="disabled")
        return path


AppFactory = Callable[..., App]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def make_app(browser: Any, app_paths: AppPaths, workspace: Path) -> Iterator[AppFactory]:
    """make_app(fake=..., endpoint=..., viewport=..., **settings) -> a loaded page."""
    started: list[tuple[Core, PageHarness, Any]] = []

    def build(
        fake: FakeOllama | None = None,
        *,
        endpoint: str | None = None,
        viewport: tuple[int, int] = (420, 640),
        scale: float = 1,
        locale: str = "en-US",
        wait: bool = True,
        secrets: Any = None,
        history_warning: str | None = None,
        web_root: Path | None = None,
        **overrides: Any,
    ) -> App:
        values: dict[str, Any] = {
            "endpoint": endpoint or (fake.url if fake else "http://127.0.0.1:9"),
            "allowed_dirs": [str(workspace)],
            "default_model": "qwen3:8b",
            "language": "en",
            "theme": "light",
        }
        values.update(overrides)
        core = Core(
            settings=Settings(**values),
            paths=app_paths,
            secrets=secrets,
            history_warning=history_warning,
        ).start()
        harness = (PageHarness(core, web_root=web_root) if web_root else PageHarness(core)).start()
        context = browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            device_scale_factor=scale,
            locale=locale,
        )
        context.add_init_script(script=WATCH)
        context.add_init_script(script=harness.init_script())
        page = context.new_page()
        page.set_default_timeout(15_000)
        app = App(core, harness, page, fake, workspace, app_paths)
        page.on("pageerror", lambda exc: app.page_errors.append(str(exc)))

        def on_dialog(dialog: Any) -> None:
            app.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)
        started.append((core, harness, context))
        page.goto(harness.url)
        if wait:
            app.wait_ready()
        return app

    yield build
    for core, harness, context in reversed(started):
        context.close()
        harness.stop()
        core.stop()


@pytest.fixture
def app(make_app: AppFactory, fake_ollama: FakeOllama) -> Iterator[App]:
    instance = make_app(fake_ollama)
    yield instance
    assert instance.page_errors == [], f"JavaScript errors on the page: {instance.page_errors}"


def open_card(card: Any) -> None:
    """Open a finished tool card (one line until the user opens it), as a user clicks it."""
    from playwright.sync_api import expect

    toggle = card.locator(".tc-toggle")
    expect(toggle).to_be_visible()
    if toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")


def choose(page: Any, select: str, value: str) -> None:
    """Pick an option of a page select (controls.js) with the mouse."""
    page.click(select)
    page.locator(f"{select}-list [role=option][data-value='{value}']").click()
