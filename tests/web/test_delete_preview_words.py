"""A delete's approval says sizes one way (the page's units: "1 B", never "(1 bytes)") and its
words in the page's language, and a yes/no fact reads as a capitalised word."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

APPROVE = "#approval button[data-decision=approve]"
YES = {"en": "Yes", "zh-CN": "是"}
LINK = {"en": "link; only the link is removed", "zh-CN": "链接；只删除链接本身"}


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_delete_tree_says_sizes_in_the_page_units_and_language(
    make_app: AppFactory, fake_ollama: FakeOllama, theme: str, lang: str
) -> None:
    app = make_app(fake_ollama, theme=theme, language=lang, viewport=(460, 660))
    folder = app.workspace / "旧 🗂"
    (folder / "子").mkdir(parents=True)
    (folder / "a.txt").write_text("x")
    (folder / "子" / "报告.md").write_bytes(b"y" * 2048)
    (folder / "link").symlink_to(folder / "a.txt")
    fake_ollama.script(
        tool_turn([("delete_file", {"path": str(folder), "recursive": True})]),
        text_turn("OK"),
    )
    app.send("delete it")
    page = app.page
    tree = page.locator("#approval .ap-preview .plain.tree")
    expect(tree).to_be_visible()
    text = tree.inner_text()
    assert "bytes" not in text and "(1 B)" in text and "(2.0 KB)" in text, text
    assert f"link  ({LINK[lang]})" in text, text
    assert text.splitlines()[0] == f"{folder}/"
    assert "    报告.md  (2.0 KB)" in text.splitlines(), text
    facts = page.locator("#approval .ap-facts")
    expect(facts).to_contain_text("2.0 KB")
    recursive = facts.locator("dd").nth(1)
    expect(recursive).to_have_text(YES[lang])
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("OK")
    card = page.locator(".tool-card")
    open_card(card)
    done = card.locator(".plain.tree").inner_text()
    assert "bytes" not in done and "(1 B)" in done, done
    assert app.page_errors == []


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_deleting_one_file_says_its_size_in_the_page_units(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    app = make_app(fake_ollama, language=lang)
    target = app.workspace / "笔记 📝.txt"
    target.write_text("hello")
    fake_ollama.script(tool_turn([("delete_file", {"path": str(target)})]), text_turn("OK"))
    app.send("delete the note")
    tree = app.page.locator("#approval .ap-preview .plain.tree")
    expect(tree).to_have_text(f"{target}  (5 B)")
