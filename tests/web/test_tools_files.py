"""The cards and approvals of the file tools declared in their own modules, in a real browser
against the real tools: edit_file (diff approved, undo byte for byte), move_file (undo), the
read-only views, and the persistence warning that asks even in full auto."""

from __future__ import annotations

import codecs
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import App, open_card

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"


def test_edit_file_shows_the_diff_then_undo_restores_bytes(app: App) -> None:
    target = app.workspace / "設定 ⚙.ini"
    original = codecs.BOM_UTF8 + "".join(f"key{n} = {n}\r\n" for n in range(300)).encode()
    target.write_bytes(original)
    app.fake.script(
        tool_turn(
            [
                (
                    "edit_file",
                    {
                        "path": str(target),
                        "edits": [{"old_text": "key150 = 150", "new_text": "key150 = 一五〇"}],
                    },
                )
            ]
        ),
        text_turn("Edited."),
    )
    app.send("Fix line 151")
    page = app.page
    panel = page.locator("#approval")
    expect(panel.locator(".ap-preview .d-del")).to_have_text("-key150 = 150")
    expect(panel.locator(".ap-preview .d-add")).to_have_text("+key150 = 一五〇")
    expect(panel.locator(".ap-preview .d-hunk")).to_have_text("@@ -148,7 +148,7 @@")
    page.click(APPROVE)
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    open_card(card)
    expect(card.locator(".tc-meta")).to_contain_text("1 edit applied")
    expect(card.locator(".tc-meta")).to_contain_text("utf-8, BOM, CRLF")
    assert target.read_bytes() == original.replace(b"key150 = 150", "key150 = 一五〇".encode())
    card.get_by_role("button", name="Undo").click()
    expect(card.locator(".tc-undone")).to_be_visible()
    assert target.read_bytes() == original


def test_move_file_card_and_undo(app: App) -> None:
    source = app.workspace / "草稿 📝.md"
    source.write_text("draft\n")
    dest = app.workspace / "done" / "final.md"
    app.fake.script(
        tool_turn([("move_file", {"source": str(source), "destination": str(dest)})]),
        text_turn("Moved."),
    )
    app.send("Move it")
    page = app.page
    panel = page.locator("#approval")
    expect(panel.locator(".ap-preview")).to_contain_text(f"→ {dest}")
    page.click(APPROVE)
    card = page.locator(".tool-card")
    open_card(card)
    expect(card.locator(".tc-done")).to_contain_text("Moved to")
    assert dest.read_text() == "draft\n" and not source.exists()
    card.get_by_role("button", name="Undo").click()
    expect(card.locator(".tc-undone")).to_be_visible()
    assert source.read_text() == "draft\n" and not dest.exists()


def test_read_only_views(app: App) -> None:
    ws = app.workspace
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("print('a')\n")
    (ws / "b.txt").write_bytes(codecs.BOM_UTF16_LE + "二行\r\n目\r\n".encode("utf-16-le"))
    app.fake.script(
        tool_turn(
            [
                (
                    "read_multiple_files",
                    {"paths": [str(ws / "src" / "a.py"), str(ws / "missing.txt")]},
                ),
                ("directory_tree", {"path": str(ws)}),
                ("get_file_info", {"path": str(ws / "b.txt")}),
                ("list_allowed_directories", {}),
            ]
        ),
        text_turn("Looked."),
    )
    app.send("Look")
    page = app.page
    expect(page.locator(".msg.assistant .content").last).to_have_text("Looked.")
    many, tree, info, allowed = (page.locator(".tool-card").nth(i) for i in range(4))
    for card in (many, tree, info, allowed):
        open_card(card)
    expect(many.locator(".excerpt")).to_contain_text("print('a')")
    expect(many.locator(".tc-error")).to_contain_text("not found")
    expect(tree.locator(".plain.tree")).to_contain_text("src/")
    expect(tree.locator(".plain.tree")).to_contain_text("  a.py")
    expect(info.locator(".info")).to_contain_text("utf-16le, BOM, CRLF")
    expect(info.locator(".info")).to_contain_text("2")
    expect(allowed.locator(".entry-name")).to_have_text(str(ws))
    expect(page.locator(".tool-card .tc-name").nth(0)).to_have_text("Read files")


def test_a_persistence_location_asks_with_a_warning_even_in_full_auto(
    make_app: Any, fake_ollama: Any
) -> None:
    app = make_app(fake_ollama, confirmation_mode="full_auto")
    target = app.workspace / ".vscode" / "tasks.json"
    app.fake.script(
        tool_turn([("write_file", {"path": str(target), "content": '{"tasks": []}\n'})]),
        text_turn("Wrote it."),
    )
    app.send("Add a task")
    page = app.page
    warning = page.locator("#approval .persist-warning")
    expect(warning).to_contain_text("runs when the folder is opened in VS Code")
    expect(warning).to_contain_text(str(target))
    assert not target.exists()
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("Wrote it.")
    assert target.exists()
    assert app.page_errors == []
