"""Another app's window for the e2e tests: ``TypingTarget`` runs tests/e2e/typing_target.py (a Tk
entry) in the test desktop and collects every key that reached it."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.e2e.desktop_env import Child, DesktopEnv, wait_for

TARGET = Path(__file__).with_name("typing_target.py")


class TypingTarget:
    """The Tk window; ``keys`` collects what it received."""

    def __init__(self, desktop: DesktopEnv) -> None:
        self.desktop = desktop
        self.popen = subprocess.Popen(
            [sys.executable, str(TARGET), "metona-typing-target"], env=desktop.env,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
        )  # fmt: skip
        self.child = Child("typing-target", self.popen)  # type: ignore[arg-type]
        self.lines: queue.Queue[str] = queue.Queue()
        self.keys: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()
        ready = self.lines.get(timeout=30)
        assert ready.startswith("ready "), ready
        self.window = wait_for(
            lambda: desktop.xdotool("search", "--onlyvisible", "--name", "metona-typing-target",
                                    check=False).split(),
            15, "the typing target's window",
        )[0]  # fmt: skip

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.put(line.strip())

    def received(self) -> list[str]:
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return [k["keysym"] for k in self.keys]
            self.keys.append(json.loads(line))

    def focus(self) -> None:
        self.desktop.xdotool("windowfocus", "--sync", self.window)

    def stop(self) -> None:
        self.child.stop()
