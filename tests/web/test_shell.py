"""The popup's own header (the window is frameless), the page controls that replace the
engine's native ones, and settings that widen what the agent may do only by the user's hand."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.support.waiting import eventually
from tests.web.conftest import App, AppFactory

pytestmark = pytest.mark.web

HEADER_BUTTONS = ["#btn-sidebar", "#btn-model", "#btn-new", "#btn-settings", "#btn-hide"]


def open_settings(page: Any) -> None:
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")


def test_the_header_is_the_title_bar(app: App) -> None:
    page = app.page
    assert app.fake is not None
    app.fake.script(text_turn("Hello there."))
    app.send("Hi")
    expect(page.locator(".msg.assistant .content")).to_have_text("Hello there.")
    expect(page.locator("#session-title")).to_have_text("Hi")
    # The drag handle is the empty part of the header, never a button (a press there would
    # start moving the window).
    drag = page.locator(".topbar .pywebview-drag-region")
    assert drag.count() >= 1
    assert page.locator(".pywebview-drag-region button, button.pywebview-drag-region").count() == 0
    box = page.locator(".titlebox").bounding_box()
    assert box is not None and box["width"] > 60

    # Every header control is reachable with Tab, in order, and named.
    page.locator("#prompt").focus()
    page.keyboard.press("Shift+Tab")
    seen = []
    page.locator("#btn-sidebar").focus()
    for _ in HEADER_BUTTONS:
        seen.append("#" + page.evaluate("document.activeElement.id"))
        page.keyboard.press("Tab")
    assert seen == HEADER_BUTTONS
    for selector in HEADER_BUTTONS:
        name = page.locator(selector).get_attribute("aria-label") or page.inner_text(selector)
        assert name.strip(), selector

    # Settings opens under the header (Hide stays reachable) and closes again.
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_be_visible()
    expect(page.locator("#btn-settings")).to_have_attribute("aria-expanded", "true")
    expect(page.locator("#btn-hide")).to_be_visible()
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_be_hidden()
    # New chat from the header, also with the settings open.
    page.click("#btn-settings")
    page.click("#btn-new")
    expect(page.locator("#settings")).to_be_hidden()
    expect(page.locator("#session-title")).to_have_text("New chat")
    expect(page.locator(".msg")).to_have_count(0)
    # The sidebar toggle.
    page.click("#btn-sidebar")
    expect(page.locator("#sidebar")).to_have_class("sidebar open")
    expect(page.locator("#btn-sidebar")).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(page.locator("#sidebar")).not_to_have_class("sidebar open")
    # Hide: by mouse, and by keyboard on the button.
    page.click("#btn-hide")
    eventually(lambda: app.harness.hide_calls == 1)
    page.locator("#btn-hide").focus()
    page.keyboard.press("Enter")
    eventually(lambda: app.harness.hide_calls == 2)


def test_the_header_speaks_chinese(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, language="zh-CN")
    page = app.page
    expect(page.locator("#btn-hide")).to_have_attribute("aria-label", "隐藏")
    expect(page.locator("#btn-settings")).to_have_attribute("aria-label", "设置")
    expect(page.locator("#btn-new")).to_have_attribute("aria-label", "新对话")
    expect(page.locator("#session-title")).to_have_text("新对话")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_page_controls_work_by_keyboard_and_follow_the_theme(
    make_app: AppFactory, fake_ollama: FakeOllama, theme: str
) -> None:
    app = make_app(fake_ollama, theme=theme)
    page = app.page
    open_settings(page)
    # No native select, spin box or radio is left anywhere in the page.
    natives = "select, input[type=number], input[type=radio], [title]"
    assert page.locator(natives).count() == 0

    # The select: open with the keyboard, move, choose; Esc closes only the list.
    language = page.locator("#set-language")
    language.focus()
    page.keyboard.press("ArrowDown")
    listbox = page.locator("#set-language-list")
    expect(listbox).to_be_visible()
    expect(language).to_have_attribute("aria-expanded", "true")
    expect(listbox.locator("[aria-selected=true]")).to_have_attribute("data-value", "en")
    page.keyboard.press("Escape")
    expect(listbox).to_be_hidden()
    expect(page.locator("#settings")).to_be_visible()
    expect(language).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowDown")
    expect(listbox).to_have_attribute("aria-activedescendant", "set-language-opt-2")
    page.keyboard.press("Enter")
    expect(listbox).to_be_hidden()
    eventually(lambda: app.core.settings.language == "zh-CN")
    expect(language).to_contain_text("简体中文")
    expect(page.locator("#settings-title")).to_have_text("设置")

    # The list is drawn in the theme's own colours.
    page.keyboard.press("Space")
    expect(listbox).to_be_visible()
    colours = page.evaluate(
        """() => {
      const list = getComputedStyle(document.querySelector('#set-language-list'));
      const root = getComputedStyle(document.documentElement);
      const probe = document.createElement('div');
      probe.style.background = root.getPropertyValue('--bg-elev');
      document.body.append(probe);
      const want = getComputedStyle(probe).backgroundColor;
      probe.remove();
      return [list.backgroundColor, want];
    }"""
    )
    assert colours[0] == colours[1]
    page.keyboard.press("Escape")

    # The radio group: one tab stop, arrows move and choose.
    checked = page.locator("#set-theme [aria-checked=true]")
    expect(checked).to_have_attribute("data-value", theme)
    checked.focus()
    page.keyboard.press("ArrowRight")
    following = {"light": "dark", "dark": "system"}[theme]
    eventually(lambda: app.core.settings.theme == following)
    expect(page.locator("#set-theme [tabindex='0']")).to_have_attribute("data-value", following)
    assert page.locator("#set-theme [role=radio][tabindex='0']").count() == 1
    expect(page.locator("#set-theme")).to_have_attribute("role", "radiogroup")

    # The number field: arrows step it, out-of-range text is refused.
    temperature = page.locator("#set-temperature")
    expect(temperature).to_have_attribute("role", "spinbutton")
    temperature.focus()
    page.keyboard.press("ArrowUp")
    eventually(lambda: app.core.settings.temperature == pytest.approx(0.8))
    page.click("#set-max_rounds ~ .step-btn:last-child")
    eventually(lambda: app.core.settings.max_rounds == 11)
    page.fill("#set-max_rounds", "1000")
    page.press("#set-max_rounds", "Tab")
    expect(page.locator(".field.invalid .field-error")).to_contain_text("100")
    assert app.core.settings.max_rounds == 11

    # Themed tooltips replace the engine's: hover a header button.
    page.keyboard.press("Escape")
    page.hover("#btn-new")
    tip = page.locator("#tooltip")
    expect(tip).to_be_visible()
    expect(tip).to_have_text("新对话（Ctrl+N）")
    assert page.locator("[title]").count() == 0
    assert app.page_errors == []


def test_scripted_clicks_cannot_widen_settings_but_real_ones_can(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Any
) -> None:
    app = make_app(fake_ollama, sandbox_enabled=True)
    page = app.page
    open_settings(page)
    extra = tmp_path / "extra"
    extra.mkdir()

    # A script on the page clicks, dispatches and types: nothing widens.
    page.evaluate("document.querySelector('#set-run_command_enabled').click()")
    page.evaluate(
        """() => document.querySelector('#set-confirmation_mode-full_auto')
        .dispatchEvent(new MouseEvent('click', { bubbles: true }))"""
    )
    page.evaluate(
        """(path) => {
      const input = document.querySelector('#add-allowed_dirs');
      input.value = path;
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      input.value = path;
      input.parentElement.querySelector('.btn').click();
    }""",
        str(extra),
    )
    page.evaluate("document.querySelector('#set-sandbox_enabled').click()")
    page.evaluate(
        """() => {
      const group = document.querySelector('#set-confirmation_mode');
      group.querySelector('[aria-checked=true]').focus();
      group.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    }"""
    )
    expect(page.locator("#set-run_command_enabled")).not_to_be_checked()
    expect(page.locator("#set-sandbox_enabled")).to_be_checked()
    expect(page.locator("#set-confirmation_mode [aria-checked=true]")).to_have_attribute(
        "data-value", "all_writes"
    )
    expect(page.locator(".field-error", has_text="click or key press")).not_to_have_count(0)
    assert page.locator(".risk").count() == 0
    settings = app.core.settings
    assert settings.run_command_enabled is False
    assert settings.confirmation_mode == "all_writes"
    assert settings.sandbox_enabled is True
    assert str(extra) not in settings.allowed_dirs

    # Narrowing needs no ceremony, even from a script (it can only make the agent safer).
    page.evaluate("document.querySelector('#tool-delete_file').click()")
    eventually(lambda: app.core.settings.disabled_tools == ["delete_file"])

    # The user's own clicks and keys do widen.
    page.locator("label[for=set-run_command_enabled]").click()
    eventually(lambda: app.core.settings.run_command_enabled is True)
    page.fill("#add-allowed_dirs", str(extra))
    page.press("#add-allowed_dirs", "Enter")
    eventually(lambda: str(extra) in app.core.settings.allowed_dirs)

    # Full auto names its risk first; a scripted click on the confirm button does nothing.
    page.locator("#set-confirmation_mode-full_auto").click()
    risk = page.locator("#settings .risk")
    expect(risk).to_contain_text("without asking you first")
    confirm = risk.locator("button.danger")
    expect(confirm).to_be_enabled()
    expect(risk.locator("button", has_text="Cancel")).to_be_focused()
    confirm.evaluate("(button) => button.click()")
    assert app.core.settings.confirmation_mode == "all_writes"
    confirm.click()
    eventually(lambda: app.core.settings.confirmation_mode == "full_auto")
    expect(risk).to_have_count(0)

    # The sandbox off: the risk, then Cancel (or Esc) keeps it on.
    page.locator("label[for=set-sandbox_enabled]").click()
    expect(risk).to_contain_text("use the network")
    expect(page.locator("#set-sandbox_enabled")).not_to_be_checked()  # shown as asked...
    expect(risk.locator("button", has_text="Cancel")).to_be_focused()  # the box has the keys
    page.keyboard.press("Escape")
    expect(risk).to_have_count(0)
    expect(page.locator("#set-sandbox_enabled")).to_be_checked()  # ...and put back
    expect(page.locator("#settings")).to_be_visible()
    assert app.core.settings.sandbox_enabled is True
    page.locator("label[for=set-sandbox_enabled]").click()
    risk.locator("button.danger").click()
    eventually(lambda: app.core.settings.sandbox_enabled is False)
    assert app.page_errors == []


def test_the_model_picker_by_keyboard(app: App) -> None:
    page = app.page
    page.locator("#btn-model").focus()
    page.keyboard.press("Enter")
    menu = page.locator("#model-menu")
    models = menu.locator("[role=listbox]:not(.select-list)")
    expect(models.locator("[role=option]")).to_have_count(3)
    # Only options in the listbox; the current model has the focus and is marked selected.
    assert models.locator(":scope > :not([role=option])").count() == 0
    selected = models.locator("[role=option][aria-selected=true]")
    expect(selected).to_contain_text("qwen3:8b")
    expect(selected).to_be_focused()
    page.keyboard.press("End")
    expect(menu.locator(".menu-foot button").last).to_be_focused()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowDown")
    expect(menu.locator("[role=option]", has_text="gemma3:4b")).to_be_focused()
    page.keyboard.press("Enter")
    expect(menu).to_be_hidden()
    expect(page.locator("#model-name")).to_have_text("gemma3:4b")
    expect(page.locator("#btn-model")).to_have_attribute("aria-expanded", "false")
    page.locator("#btn-model").focus()
    page.keyboard.press("Enter")
    expect(menu).to_be_visible()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(page.locator("#prompt")).to_be_focused()  # where the user types next
    assert app.harness.hide_calls == 0  # Esc closed the menu, not the popup


def test_tooltips_follow_the_keyboard_and_esc_closes_them_first(app: App) -> None:
    page = app.page
    page.locator("#btn-sidebar").focus()
    page.keyboard.press("Tab")  # the model button
    page.keyboard.press("Tab")  # New chat, by keyboard: its tip shows at once
    tip = page.locator("#tooltip")
    expect(page.locator("#btn-new")).to_be_focused()
    expect(tip).to_be_visible()
    expect(tip).to_have_text("New chat (Ctrl+N)")
    expect(page.locator("#btn-new")).to_have_attribute("aria-describedby", "tooltip")
    page.keyboard.press("Escape")  # closes the tip only
    expect(tip).to_be_hidden()
    assert page.locator("#btn-new").get_attribute("aria-describedby") is None
    assert app.harness.hide_calls == 0
    page.keyboard.press("Escape")  # now the popup hides
    eventually(lambda: app.harness.hide_calls == 1)
    # A title in the model's Markdown becomes a page tooltip too, never a native one.
    assert app.fake is not None
    app.fake.script(text_turn('[docs](https://example.com "Read <b>me</b>")'))
    app.send("link")
    link = page.locator(".msg.assistant .content a")
    expect(link).to_have_attribute("data-tip", "Read <b>me</b>")
    assert page.locator("[title]").count() == 0
