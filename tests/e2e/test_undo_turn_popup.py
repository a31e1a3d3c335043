"""Undo a whole turn in the real popup (WebKitGTK under Xvfb and openbox), with real keys and
clicks: a turn creates a file, rewrites one and moves one (CJK and emoji names); the user edits
the rewritten file by hand; "Undo this turn" at the turn's end puts the rest back, says what it
left and why, and "Undo anyway" replaces the user's edit only when clicked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.app_setup import app_home, app_settings, running
from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.e2e.test_focus_follows import click_element, press_hotkey, shown, types_into_prompt
from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]

NEW, EDITED, MOVED_FROM, MOVED_TO = "报告 📊.txt", "笔记 📝.txt", "草稿 ✏️.md", "定稿 ✅.md"
SUMMARY = ".msg.assistant .turn-summary"


@pytest.fixture
def auto_app(
    desktop: DesktopEnv, fake: FakeOllama, workspace: Path, tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[AppProcess]:  # fmt: skip
    settings = app_settings(fake.url, workspace, confirmation_mode="full_auto")
    yield from running(AppProcess(desktop, app_home(tmp_path, settings), name=request.node.name))


def text_of(app: AppProcess, selector: str) -> str | None:
    found = app.eval_js(
        f"(function () {{ const el = document.querySelector({json.dumps(selector)});"
        " return el ? el.textContent : null; })()"
    )
    return found if isinstance(found, str) else None


def test_undo_this_turn_in_the_popup_leaves_the_users_edit_until_asked(
    desktop: DesktopEnv, auto_app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    app = auto_app
    (workspace / EDITED).write_text("旧内容 old\n", encoding="utf-8")
    (workspace / MOVED_FROM).write_text("# 草稿\n", encoding="utf-8")
    fake.script(
        tool_turn(
            [
                ("write_file", {"path": NEW, "content": "新文件 ✨\n"}),
                ("write_file", {"path": EDITED, "content": "新内容\n"}),
                ("move_file", {"source": MOVED_FROM, "destination": MOVED_TO}),
            ]
        ),
        text_turn("完成 ✅"),
    )
    press_hotkey(desktop)
    wait_for(lambda: shown(desktop, app), 15, "the popup")
    wait_for(lambda: app.eval_js("document.querySelector('#app').dataset.ready || null"), 20,
             "the page to boot")  # fmt: skip
    types_into_prompt(desktop, app, "tidy my files")
    desktop.xdotool("key", "Return")
    wait_for(lambda: text_of(app, f"{SUMMARY} .ts-title"), 30, "the turn's summary")
    assert text_of(app, f"{SUMMARY} .ts-title") == "This turn changed 3 files"
    assert (workspace / MOVED_TO).exists() and (workspace / NEW).exists()

    (workspace / EDITED).write_text("the user's own edit ✍️\n", encoding="utf-8")
    click_element(desktop, app, f"{SUMMARY} .ts-undo")
    head = f"{SUMMARY} .hist-report-head"
    wait_for(lambda: text_of(app, head), 15, "the undo's report")
    assert text_of(app, head) == "Undid 2 of 3 changes. Left as they are:"
    assert "was modified after the agent's change" in str(text_of(app, f"{SUMMARY} .hist-left"))
    assert not (workspace / NEW).exists() and not (workspace / MOVED_TO).exists()
    assert (workspace / MOVED_FROM).read_text(encoding="utf-8") == "# 草稿\n"
    assert (workspace / EDITED).read_text(encoding="utf-8") == "the user's own edit ✍️\n"
    desktop.screenshot("undo-turn-left")

    click_element(desktop, app, f"{SUMMARY} .hist-choice .btn.danger")  # Undo anyway
    wait_for(
        lambda: text_of(app, head) == "Every change of this turn is undone now.",
        15,
        "the forced undo's report",
    )
    assert (workspace / EDITED).read_text(encoding="utf-8") == "旧内容 old\n"
    undone = f"document.querySelectorAll('{SUMMARY} .tc-undone').length"
    wait_for(lambda: app.eval_js(undone) == 3, 15, "every row of the summary to say Undone")
    desktop.screenshot("undo-turn-done")
