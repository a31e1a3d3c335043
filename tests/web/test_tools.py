"""Tool cards and approvals in a real browser, against real file tools."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import App, open_card

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"
DENY = "#approval .ap-actions button.btn:not(.primary)"


def write_turn(path: Path, content: str = "hello\nworld\n") -> object:
    return tool_turn(
        [("write_file", {"path": str(path), "content": content})], content="Writing it."
    )


def test_write_file_waits_for_approval_then_succeeds(app: App) -> None:
    target = app.workspace / "notes.txt"
    app.fake.script(write_turn(target), text_turn("Done."))
    app.send("Write my notes")
    page = app.page
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "pending")
    expect(card).to_have_class("tool-card status-pending awaiting")
    panel = page.locator("#approval")
    expect(panel).to_be_visible()
    expect(panel.locator(".ap-facts")).to_contain_text(str(target))
    expect(panel.locator(".ap-preview")).to_contain_text("hello")
    expect(panel.locator(".remember")).to_be_visible()  # write_file may be remembered
    assert not target.exists()
    page.click(APPROVE)
    expect(card).to_have_attribute("data-status", "success")
    expect(panel).to_be_hidden()
    expect(page.locator(".msg.assistant .content").last).to_have_text("Done.")
    assert target.read_text() == "hello\nworld\n"
    # The card keeps the preview and says what happened; the change can be undone.
    open_card(card)
    expect(card.locator(".tc-done")).to_be_visible()
    card.get_by_role("button", name="Undo").click()
    expect(card.locator(".tc-undone")).to_be_visible()
    assert not target.exists()


def test_deny_cancels_and_the_file_is_not_written(app: App) -> None:
    target = app.workspace / "nope.txt"
    app.fake.script(write_turn(target), text_turn("Understood."))
    app.send("Write it")
    page = app.page
    page.click(DENY)
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "cancelled")
    open_card(card)
    expect(card.locator(".tc-cancelled-note")).to_contain_text("denied")
    expect(page.locator(".msg.assistant .content").last).to_have_text("Understood.")
    assert not target.exists()
    tool_message = app.fake.chat_requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "denied" in tool_message["content"]


def test_enter_approves_and_escape_denies(app: App) -> None:
    first = app.workspace / "first.txt"
    second = app.workspace / "second.txt"
    app.fake.script(write_turn(first), text_turn("One."), write_turn(second), text_turn("Two."))
    page = app.page
    app.send("First")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.focus("#approval")
    page.keyboard.press("Enter")
    expect(page.locator(".msg.assistant .content").last).to_have_text("One.")
    assert first.exists()
    app.send("Second")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.focus("#approval")
    page.keyboard.press("Escape")
    expect(page.locator(".tool-card").last).to_have_attribute("data-status", "cancelled")
    assert not second.exists()
    assert app.harness.hide_calls == 0  # Esc answered the approval; it did not hide the popup


def test_an_answer_given_elsewhere_updates_the_page_at_once(app: App) -> None:
    target = app.workspace / "elsewhere.txt"
    app.fake.script(write_turn(target), text_turn("Ok."))
    app.send("Write")
    page = app.page
    expect(page.locator("#approval")).to_be_visible()
    call_id = app.core.pending_approvals()[0]["call_id"]
    # As a notification or the tray would: from another thread.
    threading.Thread(
        target=app.core.decide, args=(call_id, True), kwargs={"by": "notification"}
    ).start()
    expect(page.locator("#approval")).to_be_hidden()
    expect(page.locator(".tool-card")).to_have_attribute("data-status", "success")
    assert target.exists()


def test_pending_calls_queue_in_order(app: App) -> None:
    a = app.workspace / "a.txt"
    b = app.workspace / "b.txt"
    app.fake.script(write_turn(a), write_turn(b), text_turn("A done."), text_turn("B done."))
    page = app.page
    app.send("Chat A")
    expect(page.locator("#approval")).to_contain_text("a.txt")
    page.keyboard.press("Control+n")
    app.send("Chat B")
    queue = page.locator("#approval .queue")
    expect(queue).to_have_text("1 of 2")
    # The oldest stays in front; it belongs to the other chat, and says so.
    expect(page.locator("#approval .ap-facts")).to_contain_text("a.txt")
    expect(page.locator("#approval .ap-facts")).to_contain_text("Chat A")
    page.click(APPROVE)
    expect(page.locator("#approval .ap-facts")).to_contain_text("b.txt")
    expect(queue).to_be_hidden()
    page.click(APPROVE)
    expect(page.locator("#approval")).to_be_hidden()
    expect(page.locator(".tool-card")).to_have_attribute("data-status", "success")
    assert a.exists() and b.exists()


def test_remember_skips_the_next_write_in_this_chat(app: App) -> None:
    one = app.workspace / "one.txt"
    two = app.workspace / "two.txt"
    app.fake.script(write_turn(one), write_turn(two), text_turn("Both."))
    page = app.page
    app.send("Two files")
    page.check("#approval-remember")
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("Both.")
    expect(page.locator(".tool-card[data-status=success]")).to_have_count(2)
    assert one.exists() and two.exists()


def test_result_views_fit_each_tool(app: App) -> None:
    ws = app.workspace
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text("".join(f"line {i}\n" for i in range(1, 41)))
    (ws / "README.md").write_text("# Demo\nimport this\n")
    app.fake.script(
        tool_turn(
            [
                ("read_file", {"path": str(ws / "src" / "main.py")}),
                ("list_directory", {"path": str(ws)}),
                ("search_files", {"path": str(ws), "query": "line 3"}),
            ]
        ),
        tool_turn([("delete_file", {"path": str(ws / "src"), "recursive": True})]),
        text_turn("Looked around."),
    )
    page = app.page
    app.send("Look around")
    delete = page.locator(".tool-card[data-status=pending]")
    expect(page.locator("#approval .ap-preview")).to_contain_text("main.py")
    expect(delete.locator(".tc-name")).to_have_text("Delete")
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("Looked around.")
    cards = page.locator(".tool-card")
    read, listing, search, removed = (cards.nth(i) for i in range(4))
    for each in (read, listing, search, removed):
        open_card(each)
    expect(read.locator(".excerpt .ln").first).to_have_text(" 1")
    expect(read.locator(".fold-toggle")).to_have_text("Show all (40 lines)")
    read.locator(".fold-toggle").click()
    expect(read.locator(".fold")).not_to_have_class("fold folded")
    expect(listing.locator(".entry.directory")).to_contain_text("src/")
    expect(listing.locator(".entry.file")).to_contain_text("README.md")
    expect(search.locator(".hit-path").first).to_contain_text("main.py:3")
    expect(removed).to_have_attribute("data-status", "success")
    expect(removed.locator(".plain.tree")).to_contain_text("main.py")
    assert not (ws / "src").exists()


def test_run_command_shows_the_command_then_its_output(
    make_app: object, fake_ollama: object
) -> None:
    app = make_app(fake_ollama, run_command_enabled=True)  # type: ignore[operator]
    app.fake.script(
        tool_turn([("run_command", {"command": "echo hello from the shell"})]),
        text_turn("Ran it."),
    )
    page = app.page
    app.send("Run something")
    panel = page.locator("#approval")
    facts = panel.locator(".ap-facts")
    expect(facts.locator("dd").nth(0)).to_have_text("echo hello from the shell")
    expect(facts.locator("dd").nth(1)).to_have_text(str(app.workspace))
    expect(panel.locator(".remember")).to_have_count(0)  # commands always ask
    page.click("#approval button[data-decision=approve]")
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    open_card(card)
    expect(card.locator(".plain.stdout")).to_contain_text("hello from the shell")
    expect(card.locator(".tc-meta")).to_contain_text("exit code 0")


def test_json_data_as_content_is_previewed_and_written_as_formatted_text(app: App) -> None:
    """A model writing a JSON file passes the object itself: the approval shows the exact
    formatted text that will be written, its size, and a note; the card repeats the note."""
    target = app.workspace / "配置 🙂.json"
    data = {"名前": "テスト", "list": [1, {"ok": True}]}
    app.fake.script(
        tool_turn([("write_file", {"path": str(target), "content": data})]), text_turn("Done.")
    )
    app.send("Write the config")
    page = app.page
    panel = page.locator("#approval")
    expect(panel.locator(".ap-preview")).to_contain_text("The model gave the content as JSON data")
    expect(panel.locator(".ap-preview")).to_contain_text('"名前": "テスト"')
    expected = json.dumps(data, indent=2, ensure_ascii=False)
    expect(panel.locator(".ap-facts")).to_contain_text(f"{len(expected.encode())} B")
    page.click(APPROVE)
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    assert target.read_text("utf-8") == expected
    open_card(card)
    expect(card.locator(".tc-body")).to_contain_text("written as formatted JSON text")
