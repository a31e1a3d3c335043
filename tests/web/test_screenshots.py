"""Screenshots of the main views in both themes and both languages (test-artifacts/web/).

They are looked at by people; the test only checks the views are in the state pictured.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, midstream_error_turn, text_turn, tool_turn
from tests.mcp.conftest import fake_entry
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

POPUP = (460, 660)  # the desktop popup's size

ANSWER = {
    "en": (
        "Sure. I read the config first, then I will update it.\n\n"
        "```python\nimport json\n\ndef load(path):\n    with open(path) as f:\n"
        "        return json.load(f)  # the settings\n```\n\n"
        "- **port** stays `3000`\n- debug logging gets turned on\n"
    ),
    "zh-CN": (
        "好的。我先读取配置，然后更新它。\n\n"
        "```python\nimport json\n\ndef load(path):\n    with open(path) as f:\n"
        "        return json.load(f)  # 设置\n```\n\n"
        "- **端口** 保持 `3000`\n- 打开调试日志\n"
    ),
}


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_screenshots(make_app: AppFactory, theme: str, lang: str) -> None:
    with FakeOllama() as fake:
        app = make_app(fake, theme=theme, language=lang, viewport=POPUP)
        ws = app.workspace
        config = ws / "config.ts"
        config.write_text("export const config = {\n  port: 3000,\n  debug: false,\n};\n")
        (ws / "src").mkdir()
        for name in ("main.ts", "menu.ts", "tray.ts"):
            (ws / "src" / name).write_text(f"import {{ app }} from 'electron';\n// {name}\n")
        new_config = "export const config = {\n  port: 3000,\n  debug: true,\n};\n"
        fake.script(
            tool_turn(
                [
                    ("read_file", {"path": str(config)}),
                    ("search_files", {"path": str(ws), "query": "electron"}),
                ],
                thinking="The user wants debug on. Read the file first.",
            ),
            tool_turn(
                [("write_file", {"path": str(config), "content": new_config})],
                content=ANSWER[lang],
            ),
            text_turn("Done." if lang == "en" else "完成。"),
        )
        tag = f"{theme}-{lang}"
        page = app.page
        expect(page.locator("#log-empty")).to_be_visible()
        app.screenshot(f"{tag}-empty")
        app.send("Turn on debug logging" if lang == "en" else "打开调试日志")
        expect(page.locator("#approval button.btn.primary")).to_be_enabled()
        expect(page.locator(".tool-card[data-status=success]")).to_have_count(2)
        page.evaluate("document.activeElement.blur()")
        app.screenshot(f"{tag}-approval")
        page.click("#approval button.btn.primary")
        expect(page.locator(".msg.assistant .content").last).to_have_text(
            "Done." if lang == "en" else "完成。"
        )
        page.locator(".tool-card").nth(2).scroll_into_view_if_needed()
        page.mouse.move(4, POPUP[1] // 2)  # off the button the click left it on: no hover
        app.screenshot(f"{tag}-chat")
        page.locator(".msg.user").first.scroll_into_view_if_needed()
        app.screenshot(f"{tag}-cards")
        page.locator(".tool-card .tc-toggle").first.click()
        expect(page.locator(".tool-card .excerpt").first).to_be_visible()
        page.locator(".tool-card").first.scroll_into_view_if_needed()
        app.screenshot(f"{tag}-card-open")
        page.locator(".tool-card .tc-toggle").first.click()
        page.click("#btn-model")
        expect(page.locator("#model-menu")).to_be_visible()
        app.screenshot(f"{tag}-models")
        page.keyboard.press("Escape")
        page.click("#btn-sidebar")
        expect(page.locator("#sidebar")).to_have_class("sidebar open")
        app.screenshot(f"{tag}-sidebar")
        page.keyboard.press("Escape")
        page.click("#btn-settings")
        expect(page.locator("#settings")).to_be_visible()
        app.screenshot(f"{tag}-settings")
        expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
        page.click("#set-provider")
        expect(page.locator("#set-provider-list")).to_be_visible()
        app.screenshot(f"{tag}-settings-select")
        page.keyboard.press("Escape")
        page.locator(".set-section").nth(2).scroll_into_view_if_needed()
        app.screenshot(f"{tag}-settings-tools")
        page.locator("#set-confirmation_mode-full_auto").click()
        expect(page.locator("#settings .risk button.danger")).to_be_enabled()
        page.locator("#settings .risk").scroll_into_view_if_needed()
        app.screenshot(f"{tag}-settings-risk")
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        expect(page.locator("#settings")).to_be_hidden()
        page.click("#btn-history")
        expect(page.locator("#history .hist-row")).to_have_count(1)
        app.screenshot(f"{tag}-history")
        page.keyboard.press("Escape")
        page.hover("#btn-hide")
        expect(page.locator("#tooltip")).to_be_visible()
        app.screenshot(f"{tag}-tooltip")
        assert app.page_errors == []


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_screenshots_of_errors(make_app: AppFactory, theme: str, lang: str) -> None:
    """No model server (the first run's guide), and an answer the server broke off."""
    zh = lang == "zh-CN"
    tag = f"{theme}-{lang}"
    app = make_app(endpoint="http://127.0.0.1:9", theme=theme, language=lang, viewport=POPUP)
    expect(app.page.locator("#onboarding .ob-card")).to_be_visible()
    app.page.locator("#onboarding summary").click()
    expect(app.page.locator("#onboarding .ob-error")).to_be_visible()
    app.screenshot(f"{tag}-onboarding")
    with FakeOllama() as fake:
        partial = "我先看看配置文件，然后" if zh else "Let me look at the config first, then "
        fake.script(midstream_error_turn(partial, "CUDA error: out of memory (显存不足)"))
        broken = make_app(fake, theme=theme, language=lang, viewport=POPUP)
        broken.send("打开调试日志" if zh else "Turn on debug logging")
        expect(broken.page.locator(".notice.error")).to_contain_text("out of memory")
        broken.page.mouse.move(4, POPUP[1] // 2)
        broken.screenshot(f"{tag}-turn-failed")
        assert app.page_errors == [] and broken.page_errors == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots_wide_and_zoomed(make_app: AppFactory, theme: str) -> None:
    with FakeOllama() as fake:
        fake.script(text_turn("A **short** answer with `code`, a list:\n\n- one\n- two\n"))
        # 150% zoom in a 420x640 popup leaves 280x427 CSS pixels.
        zoomed = make_app(fake, theme=theme, viewport=(280, 427), scale=1.5)
        zoomed.send("How does this look when zoomed?")
        expect(zoomed.page.locator(".msg.assistant .msg-foot .stat").first).to_be_visible()
        zoomed.screenshot(f"{theme}-en-zoom150")
        overflow = zoomed.page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, "the page scrolls sideways at 150% zoom"
        # An approval at 150%: the decision and its buttons still fit the little window.
        target = zoomed.workspace / "报告 📄 quarterly-report-final.md"
        fake.script(
            tool_turn([("write_file", {"path": str(target), "content": "# 报告\n"})]),
            text_turn("Written."),
        )
        zoomed.send("Write the report")
        approve = zoomed.page.locator("#approval button[data-decision=approve]")
        expect(approve).to_be_enabled()
        zoomed.page.evaluate("document.activeElement.blur()")
        zoomed.screenshot(f"{theme}-en-zoom150-approval")
        # Approve is in the window and not under anything: a click there reaches it.
        assert approve.evaluate(
            """b => { const r = b.getBoundingClientRect();
              const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return r.right <= innerWidth && r.bottom <= innerHeight && b.contains(hit); }"""
        ), "Approve is out of sight at 150% zoom"
        approve.click()
        expect(zoomed.page.locator("#btn-send")).to_be_visible()
        zoomed.page.click("#btn-model")
        expect(zoomed.page.locator("#model-menu")).to_be_visible()
        zoomed.screenshot(f"{theme}-en-zoom150-models")
        zoomed.page.keyboard.press("Escape")
        zoomed.page.click("#btn-settings")
        expect(zoomed.page.locator("#settings")).to_have_attribute("data-armed", "true")
        zoomed.screenshot(f"{theme}-en-zoom150-settings")
        wide = make_app(fake, theme=theme, viewport=(900, 640))
        expect(wide.page.locator("#sidebar")).to_be_visible()
        wide.screenshot(f"{theme}-en-wide")


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_screenshots_of_tools_commands_mcp_and_export(
    make_app: AppFactory, tmp_path: Path, theme: str, lang: str
) -> None:
    """The views the first test does not reach: an edit's diff (approval and card), a command
    outside the sandbox, a failed command, an MCP result, Settings' tool servers, export."""
    marks = tmp_path / "marks"
    marks.mkdir()
    zh = lang == "zh-CN"
    with FakeOllama() as fake:
        app = make_app(
            fake,
            theme=theme,
            language=lang,
            viewport=POPUP,
            run_command_enabled=True,
            sandbox_enabled=False,
            mcp_servers={"weather": fake_entry(marks, trust="trust_read_only")},
        )
        eventually(lambda: any(s["status"] == "ready" for s in app.core.mcp_status()), 30, "ready")
        target = app.workspace / ("设置 ⚙.ini" if zh else "settings ⚙.ini")
        target.write_text("".join(f"key{n} = {n}\n" for n in range(12)), encoding="utf-8")
        new = "key6 = 六 🎉" if zh else "key6 = six 🎉"
        fake.script(
            tool_turn(
                [
                    (
                        "edit_file",
                        {"path": str(target), "edits": [{"old_text": "key6 = 6", "new_text": new}]},
                    )
                ]
            ),
            tool_turn([("run_command", {"command": "cat 'missing \u202etxt.md' && echo 完成"})]),
            tool_turn([("weather__weather", {"city": "北京 🌧" if zh else "Zürich 🌧"})]),
            text_turn("完成。" if zh else "Done."),
        )
        tag = f"{theme}-{lang}"
        page = app.page
        app.send("把第 7 行改成六，然后检查" if zh else "Set line 7 to six, then check it")
        approve = page.locator("#approval button[data-decision=approve]")
        expect(page.locator("#approval .ap-preview .d-add")).to_be_visible()
        expect(approve).to_be_enabled()  # the buttons arm after a moment: pictured armed
        page.evaluate("document.activeElement.blur()")
        app.screenshot(f"{tag}-edit-approval")
        approve.click()
        expect(page.locator("#approval .ap-facts")).to_contain_text(
            "未使用沙箱" if zh else "Not sandboxed"
        )
        expect(approve).to_be_enabled()
        page.evaluate("document.activeElement.blur()")
        app.screenshot(f"{tag}-command-approval")
        approve.click()
        expect(page.locator(".msg.assistant .content").last).to_have_text(
            "完成。" if zh else "Done."
        )
        page.mouse.move(4, POPUP[1] // 2)
        cards = page.locator(".tool-card")
        edit, command, weather = cards.nth(0), cards.nth(1), cards.nth(2)
        expect(command).to_have_attribute("data-status", "error")
        open_card(edit)
        edit.scroll_into_view_if_needed()
        page.evaluate("document.activeElement.blur()")
        app.screenshot(f"{tag}-edit-card")
        open_card(command)
        command.scroll_into_view_if_needed()
        page.evaluate("document.activeElement.blur()")
        app.screenshot(f"{tag}-command-failed")
        open_card(weather)
        weather.scroll_into_view_if_needed()
        page.evaluate("document.activeElement.blur()")
        app.screenshot(f"{tag}-mcp-card")
        page.click("#btn-settings")
        expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
        row = page.locator('.mcp-server[data-name="weather"]')
        expect(row.locator(".mcp-status")).to_have_text("运行中" if zh else "Running")
        row.scroll_into_view_if_needed()
        app.screenshot(f"{tag}-settings-mcp")
        page.keyboard.press("Escape")
        expect(page.locator("#settings")).to_be_hidden()
        page.click("#btn-sidebar")
        session = page.locator(".session").first
        session.locator(".session-export").click()
        expect(session.locator("button", has_text="JSON")).to_be_visible()
        app.screenshot(f"{tag}-export")
        assert app.page_errors == []
