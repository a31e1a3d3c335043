"""The approval panel shows what will really happen: no stray text, a command once with the
folder it runs in and whether it is confined, hidden characters made visible, and links that
cannot leave the popup by any mouse button or by dragging."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

PANEL = "#approval"
APPROVE = "#approval button[data-decision=approve]"
DENY = "#approval button[data-decision=deny]"


def test_an_unsandboxed_command_is_shown_once_with_its_folder_and_is_not_the_default(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, run_command_enabled=True, sandbox_enabled=False)
    marker = app.workspace / "ran.txt"
    command = "echo \u202etxt.exe 你好 🙂 > ran.txt"
    fake_ollama.script(tool_turn([("run_command", {"command": command})]), text_turn("Ok."))
    app.send("run it")
    page = app.page
    panel = page.locator(PANEL)
    expect(page.locator(APPROVE)).to_be_enabled()
    text = panel.inner_text()
    assert "null" not in text
    shown = "echo ⟨U+202E⟩txt.exe 你好 🙂 > ran.txt"
    assert text.count(shown) == 1, text
    assert "\u202e" not in text
    # The model gave no folder: the panel names the absolute one it runs in.
    cwd = panel.locator(".ap-facts .kv", has_text="Folder").locator("dd")
    expect(cwd).to_have_text(str(app.workspace))
    expect(panel.locator(".ap-facts")).to_contain_text("Not sandboxed")
    # Approve is not the primary button and says what it allows.
    approve = page.locator(APPROVE)
    expect(approve).not_to_have_class("btn primary")
    expect(approve).to_have_text("Run without sandbox")
    assert page.locator("#approval .btn.primary").count() == 0
    # Enter on the panel does not run it (Escape, handled after it, denies).
    page.focus(PANEL)
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    expect(page.locator(".tool-card")).to_have_attribute("data-status", "cancelled")
    assert not marker.exists()
    assert app.page_errors == []


def test_a_sandboxed_command_keeps_the_primary_approve(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, run_command_enabled=True, sandbox_enabled=True)
    fake_ollama.script(
        tool_turn([("run_command", {"command": "echo hi > ok.txt", "cwd": "."})]),
        text_turn("Ok."),
    )
    app.send("run it")
    page = app.page
    panel = page.locator(PANEL)
    expect(page.locator(APPROVE)).to_be_enabled()
    if "Not sandboxed" in panel.inner_text():
        pytest.skip("no working sandbox on this machine")
    expect(panel.locator(".ap-facts")).to_contain_text("Sandboxed")
    expect(page.locator(APPROVE)).to_have_class("btn primary")
    assert "null" not in panel.inner_text()
    page.focus(PANEL)
    page.keyboard.press("Enter")
    expect(page.locator(".tool-card")).to_have_attribute("data-status", "success")
    assert (app.workspace / "ok.txt").read_text() == "hi\n"


def test_a_recursive_delete_shows_hidden_characters_in_every_path(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, language="zh-CN")
    folder = app.workspace / "旧\u200b项目"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a\u202egpj.exe").write_text("x")
    (folder / "b.txt").write_text("y")
    fake_ollama.script(
        tool_turn([("delete_file", {"path": str(folder), "recursive": True})]), text_turn("好。")
    )
    app.send("删掉")
    page = app.page
    panel = page.locator(PANEL)
    expect(page.locator(APPROVE)).to_be_enabled()
    text = panel.inner_text()
    assert "null" not in text
    assert "\u202e" not in text and "\u200b" not in text
    assert "旧⟨U+200B⟩项目" in text
    assert "a⟨U+202E⟩gpj.exe" in text
    # One sentence in Chinese, no stray space.
    expect(panel.locator("#approval-title")).to_have_text("是否允许“删除”？")
    page.click(DENY)
    expect(page.locator(".tool-card")).to_have_attribute("data-status", "cancelled")
    assert folder.exists()


def test_links_leave_only_through_the_check(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama)
    fake_ollama.script(text_turn("Read [the guide](https://example.com/\u202egpj.exe/guide)."))
    app.send("link?")
    page = app.page
    link = page.locator(".msg.assistant .content a").first
    expect(link).to_be_visible()
    url = page.url
    pages_before = len(page.context.pages)
    # Middle click: the check, not a new window.
    link.click(button="middle")
    check = page.locator(".link-check")
    expect(check.locator(".lc-url")).to_contain_text("⟨U+202E⟩gpj.exe/guide")
    page.keyboard.press("Escape")
    expect(check).to_have_count(0)
    # Right click: no context menu with "open link" (the event is cancelled).
    cancelled = page.evaluate(
        """() => {
          const a = document.querySelector('.msg.assistant .content a');
          const opts = { bubbles: true, cancelable: true, button: 2 };
          const menu = new MouseEvent('contextmenu', opts);
          const drag = new DragEvent('dragstart', { bubbles: true, cancelable: true });
          return [!a.dispatchEvent(menu), !a.dispatchEvent(drag)];
        }"""
    )
    assert cancelled == [True, True]
    # Dragging the link onto the composer carries nothing.
    link.drag_to(page.locator("#prompt"))
    expect(page.locator("#prompt")).to_have_value("")
    assert page.url == url and len(page.context.pages) == pages_before
    assert app.harness.opened_links == []
    assert app.page_errors == []
