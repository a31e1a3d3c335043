"""Notifications that say what they ask, with the real app under Xvfb and the
recording notification server (tests/e2e/notify_server.py) on the session bus.

- a call that waits while the popup has focus is not announced; hiding the popup while it still
  waits announces it;
- the text is in the UI language, names the tool as the page does, shows the absolute path with
  a bidi control written out, and summarises the change; Approve / Deny / Open buttons;
- answered anywhere, the notification is withdrawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.e2e.other_window import TypingTarget
from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]


def asking(desktop: DesktopEnv, needle: str) -> list[dict[str, Any]]:
    return [n for n in desktop.notifications() if needle in n["body"] and n["actions"]]


def focused(app: AppProcess) -> bool:
    state = app.state()
    return bool(state["visible"] and state["active"])


def test_hiding_the_popup_while_a_call_waits_announces_it_in_chinese(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    (workspace / "笔记.md").write_text("标题\n旧的一行\n保留\n", encoding="utf-8")
    fake.script(
        tool_turn(
            [("write_file", {"path": "笔记.md", "content": "标题\n新的一行\n保留\n多一行\n"})]
        ),
        text_turn("好了。"),
    )
    app.core("update_settings", {"language": "zh-CN"})
    app.send("show")
    wait_for(lambda: focused(app), 15, "the popup to be shown and focused")
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "改一下笔记")
    wait_for(lambda: app.core("pending_approvals"), 30, "the write to wait for approval")
    # The user is looking at the card: nothing pops up over it.
    wait_for(lambda: app.state()["pending"] == 1, 10, "the tray to count the waiting call")
    assert asking(desktop, "笔记.md") == []
    app.send("hide")  # the user hides the popup while the call still waits
    note = wait_for(lambda: asking(desktop, "笔记.md"), 15, "the notification after hiding")[0]
    assert note["summary"] == "是否允许“写入文件”？"
    assert note["body"] == f"{workspace / '笔记.md'}\n+2 −1 行"
    assert note["actions"] == {"default": "", "approve": "允许", "deny": "拒绝", "open": "打开"}
    # Clicked once the app has the notification's id (a click before that is not wired yet).
    wait_for(lambda: app.state()["notified"], 15, "the app to wire the notification's buttons")
    desktop.invoke(int(note["id"]), "open")  # Open shows the popup at the card
    wait_for(lambda: app.state()["visible"], 15, "Open to show the popup")
    # The notification asks in the card's own words: one question, one name for each button
    # (it said "批准" where the card says "允许"); the buttons' key hints are not words.
    card = wait_for(
        lambda: app.eval_js(
            "(() => { const p = document.querySelector('#approval');"
            " return p && !p.hidden && [p.querySelector('#approval-title').textContent,"
            " p.querySelector('button.btn.primary > span').textContent.trim(),"
            " p.querySelector('.ap-actions button.btn:not(.primary) > span').textContent.trim()];"
            " })()"
        ),
        15,
        "the card in the popup",
    )
    assert card == [note["summary"], note["actions"]["approve"], note["actions"]["deny"]]
    app.core("decide", app.core("pending_approvals")[0]["call_id"], True)  # answered there
    wait_for(lambda: "多一行" in (workspace / "笔记.md").read_text(encoding="utf-8"), 15,
             "the approved write")  # fmt: skip
    assert len(asking(desktop, "笔记.md")) == 1  # announced once, not again on Open


def test_the_target_is_shown_as_it_really_is_and_deny_works(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    name = "invoice\u202efdp.exe"  # shows as "invoiceexe.pdf" where bidi is applied
    fake.script(tool_turn([("write_file", {"path": name, "content": "MZ"})]), text_turn("Ok."))
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "save the invoice")
    note = wait_for(lambda: asking(desktop, "invoice"), 30, "the approval notification")[0]
    assert note["summary"] == "Allow “Write file”?"
    assert note["body"] == f"{workspace}/invoice⟨U+202E⟩fdp.exe\nnew file, 2 B"
    assert "\u202e" not in note["body"]
    assert note["actions"] == {"default": "", "approve": "Approve", "deny": "Deny", "open": "Open"}
    wait_for(lambda: app.state()["notified"], 15, "the app to wire the notification's buttons")
    desktop.invoke(int(note["id"]), "deny")
    wait_for(lambda: app.core("status")["state"] == "idle", 20, "the turn to finish")
    calls = app.core("get_session", session["id"])["tool_calls"]
    assert calls[0]["decided_by"] == "notification" and calls[0]["status"] != "success"
    assert not (workspace / name).exists()


def test_moving_to_another_app_while_a_call_waits_announces_it(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    fake.script(tool_turn([("run_command", {"command": "echo 你好 && ls"})]), text_turn("Done."))
    app.core("update_settings", {"run_command_enabled": True})
    other = TypingTarget(desktop)
    try:
        app.send("show")
        wait_for(lambda: focused(app), 15, "the popup to be shown and focused")
        session = app.core("new_session", workspace=str(workspace))
        app.core("send_message", session["id"], "list the folder")
        wait_for(lambda: app.core("pending_approvals"), 30, "the command to wait for approval")
        assert asking(desktop, "echo") == []
        other.focus()  # the user goes to another app; the popup may stay on screen
        wait_for(lambda: not app.state()["active"], 15, "the popup to lose the focus")
        note = wait_for(lambda: asking(desktop, "echo"), 15, "the notification")[0]
        assert note["summary"] == "Allow “Run command”?"
        assert note["body"].startswith("echo 你好 ＆＆ ls\nin ")
        app.core("decide", app.core("pending_approvals")[0]["call_id"], False)
        wait_for(
            lambda: (
                next(n for n in desktop.notifications() if n["id"] == note["id"])["closed_by"]
                == "app"
            ),
            15,
            "the notification to be withdrawn",
        )
    finally:
        other.stop()
