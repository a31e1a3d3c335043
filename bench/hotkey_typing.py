"""What typing in other apps costs the running tray app (a hotkey that hears every key is a
key logger in effect).

Starts the real app in a private Xvfb desktop (the e2e tests' DesktopEnv), types 1,500 keys
into another window (a Tk entry) with xdotool, and reports the CPU time the app's processes
used meanwhile, next to what they used idle over the same wall time. A grab sees only its own
combination, so both numbers should be about the same; pynput's RECORD listener cost 0.46 s.

    python -m bench.hotkey_typing
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KEYS = 1500


def _cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` and its live children (the popup process, when there is one)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for one in pids:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def bench_hotkey_typing() -> None:
    if not sys.platform.startswith("linux") or not all(
        shutil.which(t) for t in ("Xvfb", "xdotool", "dbus-daemon", "trayer")
    ):
        print("hotkey  typing elsewhere: skipped (needs Xvfb, xdotool, dbus-daemon, trayer)")
        return
    from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
    from tests.fakes.ollama_server import FakeOllama

    with tempfile.TemporaryDirectory() as tmp, FakeOllama() as fake:
        root = Path(tmp)
        (root / "desktop").mkdir()
        desktop = DesktopEnv(root / "desktop", root / "artifacts").start()
        target = None
        app = None
        try:
            home = root / "home"
            (home / "config").mkdir(parents=True)
            settings = {"endpoint": fake.url, "default_model": "qwen3:8b", "language": "en"}
            (home / "config" / "settings.json").write_text(json.dumps(settings))
            app = AppProcess(desktop, home, name="bench-app").start()
            assert app.child is not None
            pid = app.child.popen.pid
            target = subprocess.Popen(
                [sys.executable, str(Path(__file__).parents[1] / "tests/e2e/typing_target.py"),
                 "bench-typing-target"],
                env=desktop.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                start_new_session=True,
            )  # fmt: skip
            assert target.stdout is not None
            target.stdout.readline()  # "ready ..."
            window = wait_for(
                lambda: desktop.xdotool("search", "--onlyvisible", "--name",
                                        "bench-typing-target", check=False).split(),
                15, "the typing target",
            )[0]  # fmt: skip
            desktop.xdotool("windowfocus", "--sync", window)
            text = ("the quick brown fox jumps over the lazy dog " * 40)[:KEYS]
            cpu_before, began = _cpu_seconds(pid), time.monotonic()
            desktop.run("xdotool", "type", "--delay", "2", text, timeout=300)
            typing_cpu, wall = _cpu_seconds(pid) - cpu_before, time.monotonic() - began
            cpu_before = _cpu_seconds(pid)
            time.sleep(wall)  # the same wall time with nothing typed: the idle baseline
            idle_cpu = _cpu_seconds(pid) - cpu_before
            print(
                f"hotkey  app CPU while {KEYS} keys typed elsewhere {typing_cpu * 1000:10.0f} ms"
                f"  (idle over the same {wall:.1f} s: {idle_cpu * 1000:.0f} ms)"
            )
        finally:
            if target is not None:
                target.terminate()
                target.wait(10)
            if app is not None:
                app.stop()
            desktop.stop()


if __name__ == "__main__":
    bench_hotkey_typing()
