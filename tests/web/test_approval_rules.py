"""The card's lasting answers in the real page: "Always allow <tool> in <folder>" covers the
next call and is still there after a restart (read back from the saved settings file),
removing it asks again, and "Never" refuses the next call without a card, in both languages."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory
from tray_app.store.settings import load_settings

pytestmark = pytest.mark.web

ALWAYS = "#approval button[data-decision=always]"
NEVER = "#approval button[data-decision=never]"
CARDS = ".tool-card"


def test_always_allow_covers_the_next_call_and_survives_a_restart(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama)
    ws = app.workspace
    fake_ollama.script(
        tool_turn([("write_file", {"path": "一 🚀.txt", "content": "a"})]),
        tool_turn([("write_file", {"path": "二.txt", "content": "b"})]),
        text_turn("Done."),
    )
    app.send("write two files")
    page = app.page
    always = page.locator(ALWAYS)
    expect(always).to_be_enabled()
    expect(always).to_have_text(f"Always allow “Write file” in {ws}")
    expect(page.locator(NEVER)).to_have_text(f"Never allow “Write file” in {ws}")
    always.click()
    expect(page.locator(CARDS)).to_have_count(2)
    expect(page.locator(CARDS).nth(1)).to_have_attribute("data-status", "success")
    expect(page.locator("#approval")).to_be_hidden()
    assert (ws / "一 🚀.txt").read_text() == "a" and (ws / "二.txt").read_text() == "b"
    saved = load_settings(app.paths.settings_file).tool_rules
    assert [(r["tool"], r["folder"], r["action"]) for r in saved] == [
        ("write_file", str(ws), "allow")
    ]

    # A restart: a new Core reads the rule back from the file and asks nothing.
    again = make_app(fake_ollama, tool_rules=saved)
    fake_ollama.script(
        tool_turn([("write_file", {"path": "三.txt", "content": "c"})]), text_turn("Done.")
    )
    again.send("one more")
    expect(again.page.locator(CARDS).first).to_have_attribute("data-status", "success")
    assert (ws / "三.txt").read_text() == "c"

    # Removing the rule asks again.
    again.core.update_settings({"tool_rules": []})
    fake_ollama.script(
        tool_turn([("write_file", {"path": "四.txt", "content": "d"})]), text_turn("Done.")
    )
    again.send("and another")
    expect(again.page.locator(ALWAYS)).to_be_enabled()
    assert not (ws / "四.txt").exists()
    assert app.page_errors == [] and again.page_errors == []


def test_never_refuses_the_next_call_without_a_card_in_chinese(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, language="zh-CN")
    ws = app.workspace
    fake_ollama.script(
        tool_turn([("write_file", {"path": "a.txt", "content": "a"})]),
        tool_turn([("write_file", {"path": "b.txt", "content": "b"})]),
        text_turn("好的。"),
    )
    app.send("写")
    page = app.page
    never = page.locator(NEVER)
    expect(never).to_be_enabled()
    expect(never).to_have_text(f"永不允许在 {ws} 中“写入文件”")
    expect(page.locator(ALWAYS)).to_have_text(f"始终允许在 {ws} 中“写入文件”")
    never.click()
    cards = page.locator(CARDS)
    expect(cards).to_have_count(2)
    expect(cards.nth(1)).to_have_attribute("data-status", "cancelled")
    cards.nth(1).get_by_role("button").first.click()  # a compact card opens to say why
    expect(cards.nth(1)).to_contain_text(f"未执行：你的权限规则禁止在 {ws} 中使用 write_file")
    expect(page.locator("#approval")).to_be_hidden()
    assert not (ws / "a.txt").exists() and not (ws / "b.txt").exists()
    saved = app.core.get_settings()["tool_rules"]
    assert [(r["tool"], r["action"]) for r in saved] == [("write_file", "deny")]
    assert app.page_errors == []


def test_an_unsandboxed_command_offers_never_but_not_always(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, run_command_enabled=True, sandbox_enabled=False)
    fake_ollama.script(tool_turn([("run_command", {"command": "echo hi"})]), text_turn("Ok."))
    app.send("run it")
    page = app.page
    expect(page.locator(NEVER)).to_be_visible()
    assert page.locator(ALWAYS).count() == 0
    page.locator("#approval button[data-decision=deny]").click()
    expect(page.locator(CARDS)).to_have_attribute("data-status", "cancelled")
