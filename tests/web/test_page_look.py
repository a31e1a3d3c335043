"""What the screenshots show, held by tests: a long path in an approval wraps only at folder
boundaries (hostile names included), the popup's header gives its room to the chat's title,
and the sidebar's export choice is not dressed as a deletion."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

POPUP = (460, 660)
# Every text node of the path (the parts between <wbr>s): how many lines each one covers.
LINES_PER_PART = """el => [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.data)
  .map((n) => { const r = document.createRange(); r.selectNodeContents(n);
    return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; })"""


def test_an_approval_path_wraps_at_folder_boundaries(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, viewport=POPUP)
    folder = app.workspace
    # Names without a break opportunity of their own (no spaces, hyphens, CJK or emoji, where a
    # line may rightly break): only the separators are left to wrap at.
    for name in ("Überblick_Berichte_2026", "\u202eevil.txt", "averyveryverylongfoldername"):
        folder = folder / name
    folder.mkdir(parents=True)
    target = folder / "Konfiguration_settings.ini"
    fake_ollama.script(
        tool_turn([("write_file", {"path": str(target), "content": "x\n"})]), text_turn("Ok.")
    )
    app.send("write it")
    page = app.page
    path = page.locator("#approval .ap-facts dd").first
    expect(path).to_contain_text("settings.ini")
    shown = path.inner_text()
    assert "\u202e" not in shown and "⟨U+202E⟩evil.txt" in shown  # the control is named
    assert shown == path.evaluate("dd => dd.textContent")  # copied, it is the same text
    lines = path.evaluate(LINES_PER_PART)
    assert len(lines) == str(target).count("/") + 1
    assert path.evaluate("dd => dd.getClientRects()[0].height") > 40, "the path did not wrap"
    assert lines == [1] * len(lines), f"a name was broken across lines: {lines}"
    # The opened card shows the same path whole, wrapped the same way.
    approve = page.locator("#approval button[data-decision=approve]")
    expect(approve).to_be_enabled()
    approve.click()
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    open_card(card)
    in_card = card.locator(".tc-details .kv .v").first
    expect(in_card).to_have_text(shown)
    assert in_card.evaluate("v => v.getClientRects()[0].height") > 40, "the path did not wrap"
    lines = in_card.evaluate(LINES_PER_PART)
    assert lines == [1] * (str(target).count("/") + 1), f"a name was broken: {lines}"
    assert app.page_errors == []


def test_a_huge_path_value_stays_one_text(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, viewport=POPUP)
    huge = str(app.workspace) + "/a" * 1000 + "/报告📁" * 20 + "/b.txt"  # under PATH_MAX
    fake_ollama.script(
        tool_turn([("write_file", {"path": huge, "content": "x"})]),
        text_turn("Ok."),
    )
    app.send("write it")
    path = app.page.locator("#approval .ap-facts dd").first
    expect(path).to_contain_text("b.txt")
    assert path.evaluate("dd => dd.querySelectorAll('wbr').length") == 0


def test_the_popup_header_shows_the_title_not_the_wordmark(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(text_turn("好的 🎉"))
    app = make_app(fake_ollama, viewport=POPUP)
    app.send("Turn on debug logging")
    title = app.page.locator("#session-title")
    expect(title).to_have_text("Turn on debug logging")
    expect(app.page.locator(".brand")).to_be_hidden()
    assert title.evaluate("t => t.scrollWidth <= t.clientWidth"), "the title is cut short"
    wide = make_app(fake_ollama, viewport=(900, 640))
    expect(wide.page.locator(".brand")).to_be_visible()


def test_export_is_not_coloured_as_a_deletion(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(text_turn("Ok."))
    app = make_app(fake_ollama, viewport=POPUP)
    app.send("hello")
    page = app.page
    expect(page.locator(".msg.assistant .content")).to_have_text("Ok.")
    page.click("#btn-sidebar")
    row = page.locator(".session").first
    row.locator(".session-export").click()
    expect(row.locator("button", has_text="JSON")).to_be_visible()
    export_colour = row.evaluate("r => getComputedStyle(r).backgroundColor")
    row.locator("button", has_text="Cancel").click()
    row.get_by_role("button", name="Delete").click()
    expect(row).to_contain_text("Delete this chat?")
    delete_colour = row.evaluate("r => getComputedStyle(r).backgroundColor")
    assert export_colour != delete_colour


def test_a_chats_title_has_the_row_until_its_tools_are_wanted(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(text_turn("好的"))
    app = make_app(fake_ollama, viewport=POPUP)
    app.send("整理 📁 季度报告 numbers")
    page = app.page
    expect(page.locator(".msg.assistant .content")).to_have_text("好的")
    page.click("#btn-sidebar")
    row = page.locator(".session").first
    name = row.locator(".session-name")
    expect(name).to_have_text("整理 📁 季度报告 numbers")
    page.mouse.move(POPUP[0] - 4, POPUP[1] - 4)  # away from the drawer
    assert name.evaluate("n => n.scrollWidth <= n.clientWidth"), "the title is cut at rest"
    row.hover()
    tools = row.locator(".session-tools")
    expect(tools).to_have_css("opacity", "1")
    edge = name.evaluate("n => n.getBoundingClientRect().right")
    assert edge <= tools.evaluate("t => t.firstElementChild.getBoundingClientRect().left")


@pytest.mark.parametrize("locale", ["en", "zh-CN"])
def test_at_150_percent_zoom_the_title_has_room(make_app: AppFactory, locale: str) -> None:
    """A regression: at 150% (280x427 CSS px) the header title was cut to "Ho…"."""
    with FakeOllama() as fake:
        fake.script(text_turn("好的 👍"))
        app = make_app(fake, language=locale, viewport=(280, 427), scale=1.5)
        asked = "How does this look when zoomed?"
        if locale == "zh-CN":
            asked = "季度报告 📊 的摘要怎么写"
        app.send(asked)
        page = app.page
        title = page.locator("#session-title")
        expect(title).to_have_text(asked)
        header = page.locator(".topbar")
        width = header.evaluate("el => el.clientWidth")
        shown = title.evaluate("el => el.clientWidth")
        # A third of the bar: about ten characters instead of two.
        assert shown >= width / 3, f"the title has {shown}px of {width}px"
        # Every button left in the bar is whole and inside it.
        assert header.evaluate(
            """bar => [...bar.querySelectorAll('button')].filter((b) => b.checkVisibility())
              .every((b) => { const r = b.getBoundingClientRect(), o = bar.getBoundingClientRect();
                return r.left >= o.left - 0.5 && r.right <= o.right + 0.5; })"""
        )
        # New chat is still one step away: in the chats list, and Ctrl+N.
        page.click("#btn-sidebar")
        expect(page.locator("#sidebar-new")).to_be_visible()
        page.keyboard.press("Escape")
        page.keyboard.press("Control+n")
        expect(title).not_to_have_text(asked)
        assert app.page_errors == []
