"""Tool failures on the card in the user's language, through the real page against the real
tools: a missing file, a blocked path and an edit that matches nothing say Chinese in zh-CN,
with a hostile file name shown as text (its direction control written out), while the model
still receives the English sentence."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

HOSTILE = "报告\u202egpj.exe <b>粗</b> 🎉"


def _tool_messages(fake: FakeOllama) -> list[dict[str, Any]]:
    """The tool messages of the last request the model received."""
    last = fake.chat_requests[-1]
    return [m for m in last.get("messages", []) if m.get("role") == "tool"]


def test_failures_say_chinese_on_the_card_and_english_to_the_model(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, language="zh-CN")
    ws = app.workspace
    (ws / "笔记.txt").write_text("第一行\n第二行\n", encoding="utf-8")
    missing = ws / f"{HOSTILE}.txt"
    fake_ollama.script(
        tool_turn(
            [
                ("read_file", {"path": str(missing)}),
                ("read_file", {"path": "/etc/hostname"}),
                (
                    "edit_file",
                    {
                        "path": str(ws / "笔记.txt"),
                        "edits": [{"old_text": "第三行", "new_text": "新"}],
                    },
                ),
                ("read_multiple_files", {"paths": [str(missing), str(ws / "笔记.txt")]}),
            ]
        ),
        text_turn("好的。"),
    )
    app.send("试试这些文件")
    page = app.page
    cards = page.locator(".tool-card")
    expect(cards).to_have_count(4)
    for index in range(3):
        expect(cards.nth(index)).to_have_attribute("data-status", "error")
    expect(cards.nth(3)).to_have_attribute("data-status", "success")
    eventually(lambda: len(fake_ollama.chat_requests) >= 2, timeout=30)

    said = []
    for index in range(3):
        card = cards.nth(index)
        open_card(card)
        error = card.locator(".tc-error")
        expect(error).to_be_visible()
        said.append(error.inner_text())
        # The file name is text: no element came out of it.
        assert card.locator(".tc-error b").count() == 0
    assert said[0].startswith("找不到文件："), said[0]
    assert "⟨U+202E⟩" in said[0] and "\u202e" not in said[0]
    assert "<b>粗</b>" in said[0] and "🎉" in said[0]
    assert "位于系统文件夹 /etc 内，不允许访问" in said[1], said[1]
    assert "未更改：找不到要替换的文本" in said[2], said[2]
    # and the file's nearest lines under it, as the model was shown them
    expect(cards.nth(2).locator("pre.plain")).to_contain_text("1: 第一行")
    cards.nth(2).scroll_into_view_if_needed()
    app.screenshot("tool-errors-zh")
    assert not any("{" in text for text in said)  # every parameter was filled in
    # read_multiple_files: the file that failed says why in Chinese, beside the one it read.
    many = cards.nth(3)
    open_card(many)
    expect(many.locator(".multi-file .tc-error")).to_have_count(1)
    one = many.locator(".multi-file .tc-error").inner_text()
    assert one.startswith("找不到文件：") and "⟨U+202E⟩" in one, one
    assert "⟨U+202E⟩" in many.locator(".multi-file .pv-label").first.inner_text()
    expect(many.locator(".multi-file").nth(1)).to_contain_text("第二行")

    # The model got the English sentences (its text does not change with the UI language).
    results = [json.loads(m["content"]) for m in _tool_messages(fake_ollama)]
    assert [r["error"].split(":")[0] for r in results[:1]] == ["file not found"]
    assert "is inside the system folder" in results[1]["error"]
    assert "old_text was not found" in results[2]["error"]
    assert all("code" not in r and "params" not in r for r in results)
    assert results[3]["files"][0]["error"].startswith("file not found")
    assert all("code" not in f and "params" not in f for f in results[3]["files"])

    # Switching the page to English says the same failures in English, from the same record.
    page.evaluate("import('./js/lib/i18n.js').then((m) => m.setLanguage('en'))")
    expect(cards.nth(0).locator(".tc-error")).to_contain_text("File not found:")
    expect(cards.nth(2).locator(".tc-error")).to_contain_text("was not changed")
    assert app.page_errors == []


def test_a_code_the_page_does_not_know_shows_the_tools_sentence(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """An older (or newer) record's code without a text: the English sentence, made visible."""
    app = make_app(fake_ollama, language="zh-CN")
    shown = app.page.evaluate(
        """async () => {
          const m = await import('./js/chat/results.js');
          const known = m.failureLine('file_not_found', {path: 'a\\u202eb'}, 'x', 'tc-error');
          const unknown = m.failureLine('gone_code', {}, 'old \\u202e words', 'tc-error');
          return [known.textContent, unknown.textContent];
        }"""
    )
    assert shown == ["找不到文件：a⟨U+202E⟩b", "old ⟨U+202E⟩ words"]


def test_a_blacklisted_command_says_why_in_chinese_on_the_approval_and_the_card(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, language="zh-CN", run_command_enabled=True)
    fake_ollama.script(
        tool_turn([("run_command", {"command": "sudo shutdown -h now"})]), text_turn("好。")
    )
    app.send("关机")
    page = app.page
    panel = page.locator("#approval")
    alert = panel.locator(".tc-error[role=alert]")
    expect(alert).to_have_text("已被命令黑名单拒绝：shutdown 会关闭计算机")
    # The refusal's text starts where the panel's facts do, inside its left padding.
    lefts = page.evaluate(
        """() => {
          const start = (el) => { const r = document.createRange(); r.selectNodeContents(el);
                                  return r.getClientRects()[0].left; };
          const panel = document.querySelector('#approval');
          return [start(panel.querySelector('.tc-error[role=alert]')),
                  start(panel.querySelector('.ap-facts dt')),
                  panel.getBoundingClientRect().left];
        }"""
    )
    assert abs(lefts[0] - lefts[1]) <= 2 and lefts[0] - lefts[2] >= 8, lefts
    app.screenshot("blocked-command-zh")
    approve = panel.locator('button[data-decision="approve"]')
    expect(approve).to_be_enabled()
    approve.click()  # approved: the blacklist still refuses it
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "error")
    open_card(card)
    expect(card.locator(".tc-error").first).to_have_text(
        "已被命令黑名单拒绝：shutdown 会关闭计算机"
    )
    eventually(lambda: len(fake_ollama.chat_requests) >= 2, timeout=30)
    (sent,) = [json.loads(m["content"]) for m in _tool_messages(fake_ollama)]
    assert sent["error"].startswith("refused by the command blacklist: `shutdown`")
