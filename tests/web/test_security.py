"""Hostile model output runs nothing, loads nothing and approves nothing."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import App, open_card

pytestmark = pytest.mark.web


def hostile(origin: str) -> str:
    # `origin` is the harness itself: a request for the "tracker" would show up in its log.
    return f"""Here is the plan.

<script>window.__pwned = 'script'</script>
<img src="x" onerror="window.__pwned = 'onerror'">
<svg onload="window.__pwned = 'svg'"><circle r="5"/></svg>
<iframe src="javascript:window.top.__pwned='iframe'"></iframe>
<style>body {{ display: none !important; }}</style>
<div style="position:fixed;inset:0;background:red">overlay</div>
<form action="{origin}/steal"><input name="q"><button>Send</button></form>
<button class="btn primary" data-call-id="c_fake" onclick="window.__pwned='button'">Approve</button>

[click me](javascript:window.__pwned='link')
[data link](data:text/html,<script>alert(1)</script>)
[harmless](https://example.com/page)

![tracker]({origin}/tracker.png)
<img src="{origin}/tracker2.png">
![inline](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==)

<a href="#" onclick="window.__pwned='anchor'">anchor</a>
<details open ontoggle="window.__pwned='details'">x</details>
"""


def test_a_hostile_answer_runs_loads_and_approves_nothing(app: App) -> None:
    target = app.workspace / "victim.txt"
    origin = app.harness.origin
    app.fake.script(
        tool_turn(
            [("write_file", {"path": str(target), "content": "owned\n"})],
            content=hostile(origin),
        ),
        text_turn("Ok."),
    )
    app.send("Do it")
    page = app.page
    approve = page.locator("#approval button.btn.primary")
    expect(approve).to_be_enabled()
    content = page.locator(".msg.assistant .content").first

    # Nothing ran, nothing dangerous is in the DOM, and raw HTML shows as text.
    assert page.evaluate("window.__pwned") is None
    assert app.dialogs == []
    # (svg.icon and .code-copy are the page's own additions after sanitizing)
    for selector in (
        "script",
        "iframe",
        "svg:not(.icon)",
        "style",
        "form",
        "input",
        "button",
        "[style]",
        "[onerror]",
        "[onload]",
        "[onclick]",
        "[ontoggle]",
        "details",
    ):
        assert content.locator(selector).count() == 0, selector
    expect(content).to_contain_text("<script>")
    expect(page.locator("body")).to_be_visible()
    # Links: javascript: and data: lose their href; the web link opens in the system browser.
    expect(content.locator("a", has_text="click me")).not_to_have_attribute("href", "")
    assert content.locator("a", has_text="click me").get_attribute("href") is None
    assert content.locator("a", has_text="data link").get_attribute("href") is None
    content.locator("a", has_text="click me").click()
    url = page.url
    # Opened from the keyboard: the log keeps following its end while the approval waits, so
    # a pointer aimed at a link a script scrolled into view can land after the log moved back.
    harmless = content.locator("a", has_text="harmless")
    harmless.focus()
    page.keyboard.press("Enter")
    check = page.locator(".link-check")
    expect(check.locator(".lc-origin")).to_have_text("https://example.com")
    assert app.harness.opened_links == []  # not before the user has seen where it goes
    check.locator("button.primary").click()
    expect(check).to_have_count(0)
    expect(page.locator("#approval")).to_be_visible()
    assert page.url == url
    eventually(lambda: app.harness.opened_links == ["https://example.com/page"])
    # Remote images were never requested; the inline data image is kept.
    expect(content.locator(".blocked-img")).to_have_count(1)  # the raw <img> is shown as text
    expect(content.locator("img")).to_have_count(1)
    assert not app.harness.saw("tracker")
    assert not app.harness.saw("/steal")
    assert page.evaluate("window.__csp") == []

    # The fake Approve button is text; clicking it does nothing.
    content.get_by_text("Approve", exact=False).first.click()
    # Scripted (untrusted) clicks and keys on the real controls do nothing either.
    page.evaluate("document.querySelector('#approval button.btn.primary').click()")
    page.evaluate(
        """() => {
      const panel = document.querySelector('#approval');
      panel.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    }"""
    )
    assert len(app.core.pending_approvals()) == 1
    # A real click on Deny is the first decision Core receives.
    page.click("#approval .ap-actions button.btn:not(.primary)")
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "cancelled")
    assert not target.exists()
    assert page.evaluate("window.__pwned") is None


def test_tool_output_is_shown_as_text(app: App) -> None:
    evil = app.workspace / "evil.html"
    evil.write_text('<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>\n')
    app.fake.script(
        tool_turn([("read_file", {"path": str(evil)})]),
        text_turn("Read it."),
    )
    app.send("Read the file")
    page = app.page
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    open_card(card)
    expect(card.locator(".excerpt")).to_contain_text("<script>window.__pwned=2</script>")
    assert card.locator("img, script").count() == 0
    assert page.evaluate("window.__pwned") is None


def test_the_page_only_loads_its_own_files(app: App) -> None:
    requests = [r.split(" ", 1)[1] for r in app.harness.requests]
    assert requests, "the harness saw no request"
    assert all(r.startswith(app.harness.base) for r in requests), requests
    # The shipped page has a strict CSP and no inline script or style.
    csp = app.page.locator("meta[http-equiv=Content-Security-Policy]").get_attribute("content")
    assert "script-src 'self'" in csp and "default-src 'self'" in csp
    assert app.page.evaluate("typeof window.metona.dispatch") == "function"
    assert app.page.evaluate("Object.isFrozen(window.metona)") is True


def test_a_link_shows_its_real_target_before_it_opens(app: App) -> None:
    assert app.fake is not None
    app.fake.script(
        text_turn(
            "See [the docs](https://docs.python.org@evil.example/\u202egpj.exe) "
            "and [apple](https://\u0430pple.com/store)."
        )
    )
    app.send("links?")
    page = app.page
    content = page.locator(".msg.assistant .content").first
    expect(content.locator("a")).to_have_count(2)
    content.locator("a", has_text="the docs").click()
    check = page.locator(".link-check")
    # The host really reached, not the one the text suggests; the override made visible.
    expect(check.locator(".lc-origin")).to_have_text("https://evil.example")
    expect(check.locator(".lc-url")).to_contain_text("⟨U+202E⟩gpj.exe")
    expect(check.locator("button.primary")).to_be_focused()
    page.keyboard.press("Escape")
    expect(check).to_have_count(0)
    expect(page.locator("#settings")).to_be_hidden()
    # A look-alike international host shows in its punycode form.
    content.locator("a", has_text="apple").click()
    expect(check.locator(".lc-origin")).to_have_text("https://xn--pple-43d.com")
    check.locator("button", has_text="Cancel").click()
    expect(check).to_have_count(0)
    assert app.harness.opened_links == []
    assert app.harness.hide_calls == 0
