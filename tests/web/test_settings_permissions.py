"""Settings › Permissions in the real page: every rule and session grant with what it covers
and Remove; a hand-edited rule that is ignored says why; removing a grant asks again; both
languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

RULES = "#perm-rules .perm-item"
GRANTS = "#perm-grants .perm-item"


def test_rules_and_grants_are_listed_and_removed(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    missing = tmp_path / "不在 🚫"
    app = make_app(
        fake_ollama,
        tool_rules=[
            {"tool": "delete_file", "folder": None, "action": "deny", "created": 1_700_000_000},
            {"tool": "write_file", "folder": str(missing), "action": "allow"},
        ],
    )
    ws = app.workspace
    page = app.page
    # A "don't ask again" from a card: a session grant.
    fake_ollama.script(
        tool_turn([("write_file", {"path": "a.txt", "content": "a"})]), text_turn("Done.")
    )
    app.send("write")
    expect(page.locator("#approval-remember")).to_be_visible()
    page.check("#approval-remember")
    approve = page.locator("#approval button[data-decision=approve]")
    expect(approve).to_be_enabled()
    approve.click()
    expect(page.locator(".tool-card").first).to_have_attribute("data-status", "success")

    page.click("#btn-settings")
    rules = page.locator(RULES)
    expect(rules).to_have_count(2)
    expect(rules.nth(0)).to_contain_text("Never")
    expect(rules.nth(0)).to_contain_text("Delete")
    expect(rules.nth(0)).to_contain_text("anywhere")
    expect(rules.nth(1)).to_contain_text("Always allow")
    expect(rules.nth(1)).to_contain_text(str(missing))
    expect(rules.nth(1).locator(".perm-problem")).to_have_text(
        f"ignored: its folder {missing} does not exist"
    )
    grants = page.locator(GRANTS)
    expect(grants).to_have_count(1)
    expect(grants.first).to_contain_text("Write file")
    expect(grants.first).to_contain_text("in the chat “write”")

    # Remove the deny rule (a widening: the user's own click does it, once the panel is armed).
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    rules.nth(0).get_by_role("button", name="Remove").click()
    expect(rules).to_have_count(1)
    eventually(lambda: len(app.core.get_settings()["tool_rules"]) == 1)
    assert app.core.get_settings()["tool_rules"][0]["tool"] == "write_file"

    # Remove the grant: the next write in that chat asks again.
    grants.first.get_by_role("button", name="Remove").click()
    expect(page.locator("#perm-grants .perm-none")).to_have_text("None.")
    assert app.core.permissions()["grants"] == []
    page.click("#settings-close")
    fake_ollama.script(
        tool_turn([("write_file", {"path": "b.txt", "content": "b"})]), text_turn("Done.")
    )
    app.send("again")
    expect(page.locator("#approval button[data-decision=approve]")).to_be_visible()
    assert not (ws / "b.txt").exists()
    assert app.page_errors == []


def test_a_scripted_remove_of_a_deny_rule_is_refused(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """Taking a deny away widens what the agent may do: a script's click is not the user's."""
    app = make_app(
        fake_ollama, tool_rules=[{"tool": "delete_file", "folder": None, "action": "deny"}]
    )
    page = app.page
    page.click("#btn-settings")
    expect(page.locator(RULES)).to_have_count(1)
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    page.locator(RULES).first.get_by_role("button").evaluate("(el) => el.click()")
    refused = page.locator(".perm-field [role=alert]", has_text="only changes with a click")
    expect(refused).to_be_visible()
    expect(page.locator(RULES)).to_have_count(1)
    assert len(app.core.get_settings()["tool_rules"]) == 1


def test_the_section_in_chinese(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(
        fake_ollama,
        language="zh-CN",
        tool_rules=[
            {"tool": "mcp:github", "folder": None, "action": "ask"},
            {"tool": "write_file", "folder": "relative", "action": "allow"},
        ],
    )
    page = app.page
    page.click("#btn-settings")
    expect(page.locator(".perm-field")).to_contain_text("规则")
    rules = page.locator(RULES)
    expect(rules).to_have_count(2)
    expect(rules.nth(0)).to_contain_text("始终询问")
    expect(rules.nth(0)).to_contain_text("github 的全部工具")
    expect(rules.nth(0).locator(".perm-problem")).to_contain_text("已忽略")
    expect(rules.nth(1).locator(".perm-problem")).to_have_text(
        "已忽略：其文件夹 relative 不是绝对路径"
    )
    expect(page.locator("#perm-grants .perm-none")).to_have_text("无。")
    assert app.page_errors == []
