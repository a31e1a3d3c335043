"""Settings › Tool servers: a server name the rules refuse is said in the page's language, in a
real browser through the real bridge and Core.

The rules are unchanged (letters or digits of any script, spaces, '.', '_', '-'; 1 to 64; no
emoji, bidi or other controls): Core refuses the name with a code (``mcp/config.py``
``name_problem``) and the page words it, under the form's name field and on a server from the
file that is Invalid for its name. The refused character is shown written visible.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

IN_FILE = "报告\u202eexe"  # a bidi override in a name the file holds: Invalid, said why

TEXTS = {
    "en": {
        "emoji": "Not saved: A server name cannot contain “😀” (U+1F600): use letters or "
        "digits of any script, spaces, “.”, “_” or “-”.",
        "long": "Not saved: A server name is at most 64 characters; this one has 65.",
        "start": "Not saved: A server name starts with a letter or a digit.",
        "bidi": "A server name cannot contain “⟨U+202E⟩” (U+202E): use letters or digits of "
        "any script, spaces, “.”, “_” or “-”.",
        "invalid": "Invalid",
        "paste": "Cannot use this config: server “服务器😀”: A server name cannot contain “😀” "
        "(U+1F600): use letters or digits of any script, spaces, “.”, “_” or “-”.",
    },
    "zh-CN": {
        "emoji": "未保存：服务器名称不能包含“😀”（U+1F600）：只能使用任何文字的字母或数字、"
        "空格、“.”、“_”或“-”。",
        "long": "未保存：服务器名称最多 64 个字符；此名称有 65 个。",
        "start": "未保存：服务器名称须以字母或数字开头。",
        "bidi": "服务器名称不能包含“⟨U+202E⟩”（U+202E）：只能使用任何文字的字母或数字、"
        "空格、“.”、“_”或“-”。",
        "invalid": "配置无效",
        "paste": "无法使用此配置：服务器“服务器😀”：服务器名称不能包含“😀”（U+1F600）：只能使用任何"
        "文字的字母或数字、空格、“.”、“_”或“-”。",
    },
}


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_refused_server_name_is_said_in_the_pages_language(
    make_app: AppFactory, fake_ollama: FakeOllama, language: str
) -> None:
    texts = TEXTS[language]
    app = make_app(fake_ollama, language=language, mcp_servers={IN_FILE: {"command": "x"}})
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")

    row = page.locator(".mcp-server")  # the file's server, refused for its name
    expect(row.locator(".mcp-status")).to_have_attribute("data-status", "invalid")
    expect(row.locator(".mcp-status")).to_have_text(texts["invalid"])
    expect(row.locator(".mcp-error-why")).to_have_text(texts["bidi"])
    assert "\u202e" not in (row.locator(".mcp-error").text_content() or "")

    page.click("#mcp-add")
    page.fill("#mcp-f-command", "uvx")
    error = page.locator('.mcp-form .field-error[data-field="name"]')
    for name, said in (("服务器😀", "emoji"), ("长" * 65, "long"), ("-服务器", "start")):
        page.fill("#mcp-f-name", name)
        page.click("#mcp-save")
        expect(error).to_have_text(texts[said])
        expect(error).to_be_visible()
    page.fill("#mcp-f-name", "服务器😀")
    page.click("#mcp-save")
    expect(error).to_have_text(texts["emoji"])
    error.scroll_into_view_if_needed()
    app.screenshot(f"settings-mcp-refused-name-{language}")
    assert set(app.core.settings.mcp_servers) == {IN_FILE}  # nothing was saved

    # A pasted Claude Desktop config with such a name: refused, said the same way.
    page.locator(".mcp-paste summary").click()
    page.fill("#mcp-paste", json.dumps({"mcpServers": {"服务器😀": {"command": "uvx"}}}))
    page.click("#mcp-import")
    expect(page.locator(".mcp-paste .field-error")).to_have_text(texts["paste"])
    assert set(app.core.settings.mcp_servers) == {IN_FILE}

    # Switching the language says the section's reasons again in the other one.
    other = "zh-CN" if language == "en" else "en"
    app.core.update_settings({"language": other})
    expect(row.locator(".mcp-error-why")).to_have_text(TEXTS[other]["bidi"])
    assert app.page_errors == [] and app.dialogs == []
