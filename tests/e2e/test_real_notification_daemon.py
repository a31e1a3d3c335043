"""The app against the system's real notification-daemon (not the recording test server):
it sees that the daemon draws action buttons, its approval bubble appears on screen with the
popup hidden, and it is withdrawn from the screen once the call is answered elsewhere."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import ARTIFACTS, _why_not
from tests.e2e.desktop_env import REAL_NOTIFICATION_DAEMON, AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DesktopEnv]:
    reason = _why_not() or (
        None if os.path.exists(REAL_NOTIFICATION_DAEMON) else "notification-daemon is missing"
    )
    if reason:
        pytest.skip(reason)
    env = DesktopEnv(tmp_path_factory.mktemp("desktop-real"), ARTIFACTS, notifications="real")
    env.start()
    try:
        yield env
    finally:
        env.stop()


def bubbles(desktop: DesktopEnv) -> list[str]:
    """Mapped windows of notification-daemon (its bubbles)."""
    found = desktop.xdotool(
        "search", "--onlyvisible", "--class", "notification-daemon", check=False
    ).split()
    shown = []
    for window in found:
        try:
            if desktop.geometry(window)[2] > 50:
                shown.append(window)
        except RuntimeError:  # gone between the search and the look: withdrawn
            continue
    return shown


def ask(app: AppProcess, fake: FakeOllama, workspace: Path) -> None:
    fake.script(tool_turn([("write_file", {"path": "r.txt", "content": "x"})]), text_turn("ok"))
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "write r.txt")
    wait_for(lambda: app.core("pending_approvals"), 20, "the approval request")


def test_the_real_daemon_shows_the_approval_bubble(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    assert "buttons" in app.state()["notifications"], "the real daemon offers action buttons"
    ask(app, fake, workspace)
    wait_for(lambda: bubbles(desktop), 20, "notification-daemon's bubble on screen")
    desktop.screenshot("real-notification-daemon")
    app.core("decide", app.core("pending_approvals")[0]["call_id"], False)
    wait_for(lambda: app.core("status")["state"] == "idle", 20, "the turn to finish")
    assert not (workspace / "r.txt").exists()


def test_the_bubble_is_withdrawn_when_answered_elsewhere(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    ask(app, fake, workspace)
    wait_for(lambda: bubbles(desktop), 20, "notification-daemon's bubble on screen")
    app.core("decide", app.core("pending_approvals")[0]["call_id"], False)
    # notification-daemon ignores CloseNotification on screen; the app replaces the bubble by
    # one that expires at once (tray_app/desktop/notify/notify_linux.py).
    wait_for(lambda: not bubbles(desktop), 20, "the bubble to be withdrawn")
