"""The installed app as a user meets it: the program from the .deb (unpacked
into a throwaway root) starts under Xvfb with trayer as the tray host, its icon docks, a click
on the icon opens the popup, and a message typed there gets the fake model's answer.

Reuses the desktop harness of tests/e2e; only the command differs (the frozen program, not
``python -m tray_app``). The test hooks it answers are the same module, bundled.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import ARTIFACTS, _why_not
from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.e2e.test_desktop import POPUP, docked_icon, popup_hidden, popup_visible
from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.package.test_tarball import exec_argv

pytestmark = [pytest.mark.gui, pytest.mark.timeout(240)]

ANSWER = "装好了 ✓ — the installed app answers 🧪"


class InstalledApp(AppProcess):
    """The frozen program instead of ``python -m tray_app``."""

    def __init__(self, desktop: DesktopEnv, home: Path, program: Path) -> None:
        super().__init__(desktop, home, name="installed-app")
        self.program = program

    def launch(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.desktop.artifacts / f"{self.name}-{int(time.time() * 1000)}.log", "wb")  # noqa: SIM115
        env = self.env
        env.pop("PYTHONPATH", None)
        return subprocess.Popen(
            [str(self.program), *args], cwd=self.home, env=env,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[DesktopEnv]:
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    env = DesktopEnv(tmp_path / "desktop", ARTIFACTS / "package")
    (tmp_path / "desktop").mkdir()
    env.start()
    try:
        yield env
    finally:
        env.stop()


def test_icon_docks_and_the_popup_answers_a_chat(
    deb_root: Path, desktop: DesktopEnv, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    home = tmp_path / "home"
    with FakeOllama() as fake:
        (home / "config").mkdir(parents=True)
        settings = {"endpoint": fake.url, "default_model": "qwen3:8b", "think": False,
                    "allowed_dirs": [str(workspace)], "language": "en"}  # fmt: skip
        (home / "config" / "settings.json").write_text(json.dumps(settings))
        app = InstalledApp(desktop, home, deb_root / "opt" / "metona-tray" / "metona-tray")
        try:
            app.start()
            x, y, w, h = docked_icon(desktop)
            desktop.screenshot("installed-01-icon-docked")
            desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "1")
            wait_for(lambda: popup_visible(desktop, app), 30, "the popup after a click on the icon")
            box = wait_for(
                lambda: app.eval_js(
                    "(function () { const p = document.querySelector('#prompt');"
                    " if (!p) return null; const r = p.getBoundingClientRect();"
                    " return [r.left, r.top, r.width, r.height]; })()"
                ),
                30,
                "the chat's prompt box",
            )
            fake.script(text_turn(ANSWER))
            wx, wy, _ww, _wh = desktop.geometry(desktop.visible_windows(POPUP)[0])
            desktop.xdotool("mousemove", str(int(wx + box[0] + box[2] / 2)),
                            str(int(wy + box[1] + box[3] / 2)), "click", "1")  # fmt: skip
            wait_for(
                lambda: app.eval_js(
                    "document.hasFocus() && document.activeElement"
                    " === document.querySelector('#prompt')"
                ),
                15,
                "the prompt box to have the keyboard focus",
            )  # typing before that loses the first keys
            desktop.xdotool("type", "--delay", "15", "hello from the installed app")
            desktop.xdotool("key", "Return")
            shown = wait_for(
                lambda: ANSWER in (t := str(app.eval_js(
                    "Array.from(document.querySelectorAll('.msg.assistant'))"
                    ".map(e => e.textContent).join()"
                ))) and t,
                30, "the model's answer in the popup",
            )  # fmt: skip
            assert ANSWER in shown
            assert fake.chat_requests[-1]["messages"][-1]["content"] == (
                "hello from the installed app"
            )
            desktop.screenshot("installed-02-chat")
            assert app.state()["popup_pid"], "the popup is its own (spawned) process"

            # A second launch with --toggle reaches the running app (no second icon, no GUI).
            toggle = subprocess.run(
                [str(app.program), "--toggle"], env=app.env, capture_output=True, timeout=60
            )
            assert toggle.returncode == 0, toggle.stderr
            wait_for(lambda: popup_hidden(desktop, app), 15, "--toggle to hide the popup")

            # No login entry until the user asks; then it starts this installed program.
            entry = home / "xdg-config" / "autostart" / "metona-tray.desktop"
            assert not entry.exists()
            app.core("update_settings", {"start_at_login": True})
            wait_for(entry.exists, 15, "the autostart entry")
            assert str(app.program) in exec_argv(entry)
        finally:
            app.stop()
