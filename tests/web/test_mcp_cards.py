"""MCP cards in a real browser against the in-repo MCP server: the approval shows the server,
the tool, what the server claims and the arguments (hostile text as text), and the result card
shows the text and the image the server sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.conftest import fake_entry
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory, open_card
from tray_app.mcp.naming import tool_name

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"


@pytest.mark.parametrize("locale", ["en", "zh-CN"])
def test_mcp_approval_and_result_cards(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path, locale: str
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    app = make_app(
        fake_ollama,
        language=locale,
        mcp_servers={"fake": fake_entry(marks, trust="trust_read_only")},
    )
    eventually(lambda: any(s["status"] == "ready" for s in app.core.mcp_status()), 30, "ready")
    hostile = "<img src=x onerror=alert(1)> 報告 \u202eexe.txt"
    fake_ollama.script(
        tool_turn([("fake__wipe", {"target": hostile})]),
        tool_turn([("fake__picture", {})]),
        text_turn("Done."),
    )
    app.send("wipe and draw")
    page = app.page
    panel = page.locator("#approval")
    preview = panel.locator(".mcp-preview")
    expect(preview).to_be_visible()
    expect(preview.locator("code").first).to_have_text("fake")
    expect(preview.locator("code").nth(1)).to_have_text("wipe")
    claim = "may change or delete" if locale == "en" else "可能修改或删除"
    expect(preview).to_contain_text(claim)
    expect(preview.locator("pre")).to_contain_text("<img src=x onerror=alert(1)>")
    expect(preview.locator("pre")).to_contain_text("\\u202eexe.txt")
    assert preview.locator("img").count() == 0
    assert not (marks / "wiped").exists()
    page.click(APPROVE)
    cards = page.locator(".tool-card")
    expect(cards.nth(1)).to_have_attribute("data-status", "success")
    open_card(cards.nth(1))
    image = cards.nth(1).locator("img.mcp-image")
    expect(image).to_be_visible()
    assert (image.get_attribute("src") or "").startswith("data:image/png;base64,iVBOR")
    expect(cards.nth(1)).to_contain_text("a red dot")
    assert (marks / "wiped").read_text(encoding="utf-8") == hostile
    assert app.dialogs == [] and app.page_errors == []


def test_a_running_mcp_call_shows_its_progress(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    app = make_app(fake_ollama, mcp_servers={"fake": fake_entry(marks, trust="trust_read_only")})
    eventually(lambda: any(s["status"] == "ready" for s in app.core.mcp_status()), 30, "ready")
    fake_ollama.script(tool_turn([("fake__slow", {"steps": 2})]), text_turn("Done."))
    app.send("take your time")
    card = app.page.locator(".tool-card")
    expect(card.locator(".tc-progress")).to_contain_text("1 of 2")
    expect(card.locator(".tc-progress")).to_contain_text("step 1")
    expect(card.locator(".tc-progress progress")).to_have_attribute("value", "1")
    (marks / "go").write_text("")
    expect(card).to_have_attribute("data-status", "success")
    expect(card.locator(".tc-progress")).to_have_count(0)
    assert app.page_errors == []


@pytest.mark.parametrize("locale", ["en", "zh-CN"])
def test_an_mcp_card_names_server_and_tool_and_shows_a_result_once(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path, locale: str
) -> None:
    """A regression: the card said ``weather__weather`` and showed the data twice."""
    marks = tmp_path / "marks"
    marks.mkdir()
    server = "天气 服务"  # names are letters or digits of any script (config.py)
    entry = fake_entry(marks, trust="trust_read_only")
    app = make_app(fake_ollama, language=locale, mcp_servers={server: entry})
    eventually(lambda: any(s["status"] == "ready" for s in app.core.mcp_status()), 30, "ready")
    weather, mirrored = tool_name(server, "weather", set()), tool_name(server, "mirrored", set())
    fake_ollama.script(
        tool_turn([(weather, {"city": "北京 🏙"})]),
        tool_turn([(mirrored, {})]),
        text_turn("Done."),
    )
    app.send("weather")
    page = app.page
    expect(page.locator(".msg.assistant .content").last).to_have_text("Done.")
    cards = page.locator(".tool-card")
    shown_server = "天气 服务"
    expect(cards.nth(0).locator(".tc-name")).to_have_text(f"{shown_server} › weather")
    expect(cards.nth(0).locator(".tc-name")).to_have_attribute("data-tip", weather)
    # The text is the structured result as JSON: shown once, without a second copy.
    open_card(cards.nth(0))
    result = cards.nth(0).locator(".mcp-result")
    expect(result).to_contain_text("北京 🏙")
    expect(result.locator(".pv-label")).to_have_count(0)
    assert result.inner_text().count("21.5") == 1
    # Structured content that adds something (here: all there is besides the image) is shown.
    open_card(cards.nth(1))
    expect(cards.nth(1).locator(".tc-name")).to_have_text(f"{shown_server} › mirrored")
    label = "Structured result" if locale == "en" else "结构化结果"
    expect(cards.nth(1).locator(".mcp-result .pv-label")).to_have_text(label)
    expect(cards.nth(1).locator(".mcp-result")).to_contain_text("截图 ⟨U+202E⟩🙂")
    assert app.page_errors == []
