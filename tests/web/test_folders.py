"""The folder bar and the approval panel name the absolute folder the tools really work in."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

# A CJK name with a right-to-left override in it: "cod.exe" would read as "exe.doc".
HOSTILE = "项目 \u202ecod.exe"
SHOWN = "项目 ⟨U+202E⟩cod.exe"


def test_the_folder_shown_is_where_the_tools_write(
    make_app: AppFactory, fake_ollama: FakeOllama, workspace: Path, tmp_path: Path
) -> None:
    # The first allowed folder is blocked (root's home is, in the real app): the sandbox works
    # in the second one, and that is the folder the page must name, in full.
    blocked = tmp_path / "home"
    blocked.mkdir()
    real = workspace / HOSTILE
    real.mkdir()
    app = make_app(
        fake_ollama,
        allowed_dirs=[str(blocked), str(real)],
        blocked_dirs=[str(blocked)],
        run_command_enabled=True,
    )
    page = app.page
    bar = page.locator("#workspace-path")
    expect(bar).to_have_attribute("data-path", str(real))
    expect(bar).to_contain_text(SHOWN)
    assert str(blocked) not in bar.inner_text()
    assert "\u202e" not in bar.inner_text()

    fake_ollama.script(
        tool_turn([("write_file", {"path": "报告.txt", "content": "你好\n"})]),
        tool_turn([("run_command", {"command": "ls"})]),
        text_turn("Done."),
    )
    app.send("write it")
    facts = page.locator("#approval .ap-facts")
    expect(page.locator("#approval button.btn.primary")).to_be_enabled()
    path_row = facts.locator(".kv", has_text="Path").locator("dd")
    expect(path_row).to_have_text(f"{workspace}/{SHOWN}/报告.txt")
    page.click("#approval button.btn.primary")
    expect(page.locator(".tool-card").first).to_have_attribute("data-status", "success")
    assert (real / "报告.txt").read_text(encoding="utf-8") == "你好\n"
    assert not (blocked / "报告.txt").exists()

    # run_command without a cwd: the panel says the absolute folder it would run in.
    expect(page.locator("#approval .ap-facts")).to_contain_text("ls")
    cwd_row = page.locator("#approval .ap-facts .kv", has_text="Folder").locator("dd")
    expect(cwd_row).to_have_text(f"{workspace}/{SHOWN}")
    page.click("#approval button[data-decision=deny]")
    expect(page.locator(".tool-card").nth(1)).to_have_attribute("data-status", "cancelled")

    # The settings' folder list shows the override visibly too.
    page.click("#btn-settings")
    expect(page.locator("#settings .dir-path", has_text="cod.exe")).to_have_text(
        str(real).replace("\u202e", "⟨U+202E⟩")
    )
    page.keyboard.press("Escape")

    # A chat with its own folder shows that one; a settings change moves the default.
    expect(bar).to_have_attribute("data-path", str(real))
    app.core.update_settings({"allowed_dirs": [str(workspace)], "blocked_dirs": []})
    page.click("#btn-new")
    expect(bar).to_have_attribute("data-path", str(workspace))
    assert app.page_errors == []


def test_a_move_names_both_absolute_paths(
    make_app: AppFactory, fake_ollama: FakeOllama, workspace: Path
) -> None:
    real = workspace / HOSTILE
    real.mkdir()
    (real / "a.txt").write_text("a\n", encoding="utf-8")
    app = make_app(fake_ollama, allowed_dirs=[str(real)])
    fake_ollama.script(
        tool_turn([("move_file", {"source": "a.txt", "destination": "归档/a.txt"})]),
        text_turn("Moved."),
    )
    app.send("move it")
    page = app.page
    expect(page.locator("#approval button.btn.primary")).to_be_enabled()
    facts = page.locator("#approval .ap-facts")
    expect(facts).to_contain_text(f"{workspace}/{SHOWN}/a.txt")
    expect(facts).to_contain_text(f"{workspace}/{SHOWN}/归档/a.txt")
    assert "\u202e" not in facts.inner_text()
    page.click("#approval .ap-actions button.btn:not(.primary)")
    expect(page.locator(".tool-card").first).to_have_attribute("data-status", "cancelled")
    assert (real / "a.txt").exists()
