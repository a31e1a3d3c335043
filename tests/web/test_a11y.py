"""Accessibility of every view in both themes, checked with the vendored axe-core (WCAG 2.1 A
and AA, colour contrast included), plus what axe cannot see: the closed drawer out of the Tab
order, the Settings focus trap, announced approvals and finished answers."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.axe import axe_violations
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

POPUP = (460, 660)
APPROVE = "#approval button[data-decision=approve]"
ANSWER = (
    "Here is **the plan**, with `code`:\n\n"
    "```python\ndef load(path):\n    return open(path).read()\n"
    "```\n\n1. read\n2. write\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n[docs](https://example.com/docs)\n"
)


def check(page: Any, view: str, found: dict[str, list[str]]) -> None:
    # Colours are measured once the view has settled (a fade-in is not the view).
    page.evaluate(
        """() => Promise.all(document.getAnimations()
          .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
          .map((a) => a.finished.catch(() => null)))"""
    )
    problems = axe_violations(page)
    if problems:
        found[view] = problems


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_view_passes_axe(make_app: AppFactory, fake_ollama: FakeOllama, theme: str) -> None:
    app = make_app(fake_ollama, theme=theme, viewport=POPUP)
    ws = app.workspace
    (ws / "a.txt").write_text("alpha\n")
    fake_ollama.script(
        tool_turn([("read_file", {"path": str(ws / "a.txt")})], thinking="Read it first."),
        tool_turn([("write_file", {"path": str(ws / "b.txt"), "content": "b\n"})]),
        text_turn(ANSWER),
    )
    found: dict[str, list[str]] = {}
    page = app.page
    check(page, "empty", found)
    app.send("plan it")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.evaluate("document.activeElement.blur()")
    check(page, "approval", found)
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .code-block")).to_be_visible()
    expect(page.locator("#btn-send")).to_be_visible()
    check(page, "chat", found)
    page.locator(".tool-card .tc-toggle").first.click()
    check(page, "card-open", found)
    page.locator(".msg.assistant .content a").first.click()
    expect(page.locator(".link-check")).to_be_visible()
    check(page, "link-check", found)
    page.keyboard.press("Escape")
    page.click("#btn-model")
    expect(page.locator("#model-menu")).to_be_visible()
    check(page, "models", found)
    page.keyboard.press("Escape")
    page.click("#btn-sidebar")
    expect(page.locator("#sidebar")).to_have_class("sidebar open")
    check(page, "sidebar", found)
    page.keyboard.press("Escape")
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    check(page, "settings", found)
    page.locator("#set-confirmation_mode-full_auto").click()
    expect(page.locator("#settings .risk button.danger")).to_be_enabled()
    check(page, "settings-risk", found)
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    expect(page.locator("#settings")).to_be_hidden()
    page.click("#btn-history")
    expect(page.locator("#history .hist-row")).to_have_count(1)
    check(page, "history", found)
    assert found == {}, "\n".join(f"{k}:\n  " + "\n  ".join(v) for k, v in found.items())
    assert app.page_errors == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_onboarding_passes_axe(make_app: AppFactory, theme: str) -> None:
    app = make_app(endpoint="http://127.0.0.1:9", theme=theme, viewport=POPUP)
    expect(app.page.locator("#onboarding .ob-card")).to_be_visible()
    assert axe_violations(app.page) == []


def focus_trail(page: object, presses: int, key: str = "Tab") -> list[str]:
    """Where the focus goes, press after press: the element's id or its closest landmark's."""
    trail = []
    for _ in range(presses):
        page.keyboard.press(key)  # type: ignore[attr-defined]
        trail.append(
            page.evaluate(  # type: ignore[attr-defined]
                """() => { const a = document.activeElement;
                  return (a.closest('#sidebar, #settings, main')?.id || a.tagName) + '|' +
                    (a.id || a.className); }"""
            )
        )
    return trail


def test_keyboard_drawer_settings_and_announcements(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, viewport=POPUP)
    page = app.page
    # The closed drawer is out of the Tab order and hidden.
    sidebar = page.locator("#sidebar")
    expect(sidebar).to_be_hidden()
    assert page.evaluate("document.querySelector('#sidebar').inert") is True
    page.focus("#prompt")
    assert not any(step.startswith("sidebar|") for step in focus_trail(page, 25))
    page.click("#btn-sidebar")
    expect(page.locator("#session-search")).to_be_visible()
    page.focus("#session-search")
    expect(page.locator("#session-search")).to_be_focused()
    page.keyboard.press("Escape")
    expect(sidebar).to_be_hidden()
    assert page.evaluate("document.querySelector('#sidebar').inert") is True

    # Settings is modal: Tab and Shift+Tab stay inside it; Esc closes and gives the focus to
    # the message box (where the user types next).
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    expect(page.locator("#settings-close")).to_be_focused()
    forward = focus_trail(page, 80)
    assert all(step.startswith("settings|") for step in forward), forward
    page.focus("#settings-close")
    backward = focus_trail(page, 3, "Shift+Tab")
    assert all(step.startswith("settings|") for step in backward), backward
    page.keyboard.press("Escape")
    expect(page.locator("#settings")).to_be_hidden()
    expect(page.locator("#prompt")).to_be_focused()
    assert page.evaluate("document.querySelector('main').inert") is False

    # A new approval is announced at once and can be reached; the answer is read once, done.
    target = app.workspace / "报告.txt"
    fake_ollama.script(
        tool_turn([("write_file", {"path": str(target), "content": "你好\n"})]),
        text_turn("All written down for you, " * 8, delay=0.05),
    )
    app.send("write it")
    expect(page.locator("#announce-assertive")).to_contain_text("Allow “Write file”?")
    expect(page.locator("#announce-assertive")).to_contain_text("报告.txt")
    expect(page.locator("#approval")).to_have_attribute("role", "alertdialog")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.locator(APPROVE).focus()
    page.keyboard.press("Enter")
    streaming = page.locator(".msg.assistant.streaming")
    expect(streaming).to_have_attribute("aria-busy", "true")
    assert page.locator("#announce-polite").text_content() == ""
    expect(page.locator("#btn-send")).to_be_visible()
    last = page.locator(".msg.assistant").last
    expect(last).not_to_have_attribute("aria-busy", "true")
    expect(last).to_have_attribute("aria-label", "Metona")
    expect(page.locator(".msg.user").first).to_have_attribute("aria-label", "You")
    expect(page.locator("#announce-polite")).to_have_text(
        "Metona: " + ("All written down for you, " * 8).strip()
    )
    assert page.locator("#log").get_attribute("aria-live") is None
    assert target.read_text(encoding="utf-8") == "你好\n"
    assert app.page_errors == []
