"""What the desktop shell costs and how fast it answers.

The real app (both processes) in a private Xvfb desktop with openbox and trayer (the e2e
tests' DesktopEnv), against the fake Ollama:

* start to tray icon ready: from launching ``python -m tray_app`` to the instance socket
  reporting ``tray_ready`` (the icon is docked);
* idle PSS of the whole process tree (``/proc/*/smaps_rollup``) and wakeups per second of the
  tray process (voluntary + involuntary context switches of all its threads) with the popup
  never opened, and again after it was opened and unloaded;
* hotkey to painted: ``xdotool key`` of the hotkey to the popup mapped and reported visible
  (warm: its process loaded) or to its page booted (cold: no popup process yet).

    python -m bench.shell
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

IDLE_SECONDS = 5.0
READY = "document.querySelector('#app') && document.querySelector('#app').dataset.ready || null"


def pss_mb(pid: int) -> float:
    from tests.e2e.desktop_env import descendants

    total = 0
    for one in [pid, *descendants(pid)]:
        try:
            for line in Path(f"/proc/{one}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def context_switches(pid: int) -> int:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def wakeups_per_s(pid: int, seconds: float = IDLE_SECONDS) -> float:
    before = context_switches(pid)
    time.sleep(seconds)
    return (context_switches(pid) - before) / seconds


def bench_shell() -> dict[str, Any]:
    tools = ("Xvfb", "xdotool", "dbus-daemon", "trayer", "openbox", "xprop")
    if not sys.platform.startswith("linux") or not all(shutil.which(t) for t in tools):
        print("shell   skipped (needs Xvfb, xdotool, dbus-daemon, trayer, openbox)")
        return {}
    from tests.e2e.desktop_env import AppProcess, Child, DesktopEnv, wait_for
    from tests.fakes.ollama_server import FakeOllama

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, FakeOllama() as fake:
        root = Path(tmp)
        (root / "desktop").mkdir()
        desktop = DesktopEnv(root / "desktop", root / "artifacts").start()
        app = None
        try:
            home = root / "home"
            (home / "config").mkdir(parents=True)
            settings = {"endpoint": fake.url, "default_model": "qwen3:8b", "language": "en",
                        "popup_unload_after_s": 1}  # fmt: skip
            (home / "config" / "settings.json").write_text(json.dumps(settings))
            app = AppProcess(desktop, home, name="bench-shell")
            began = time.monotonic()
            app.child = Child("bench-shell", app.launch())
            wait_for(lambda: app.state()["tray_ready"], 60, "the tray icon", interval=0.005)
            results["start_to_tray_ready_s"] = time.monotonic() - began
            wait_for(lambda: app.state()["hotkey"], 30, "the hotkey")
            pid = app.child.popen.pid
            time.sleep(2.0)  # let start-up work (model list, notifications) settle
            results["idle_pss_never_opened_mb"] = pss_mb(pid)
            results["idle_wakeups_never_opened_per_s"] = wakeups_per_s(pid)

            began = time.monotonic()
            desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
            wait_for(lambda: app.state()["visible"], 60, "the popup", interval=0.005)
            wait_for(lambda: app.eval_js(READY), 60, "the page", interval=0.01)
            results["hotkey_to_page_cold_s"] = time.monotonic() - began
            results["pss_popup_open_mb"] = pss_mb(pid)
            warm: list[float] = []
            missed = 0
            for _ in range(5):
                desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
                wait_for(lambda: not app.state()["visible"], 10, "hidden", interval=0.005)
                # shown again before the 1 s unload: the popup process is warm
                began = time.monotonic()
                desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
                try:
                    wait_for(lambda: app.state()["visible"], 10, "shown", interval=0.002)
                except AssertionError:
                    # A press right after the hide sometimes never reaches the app (the log
                    # shows no toggle; the popup unloads 1 s later): counted, not hidden.
                    missed += 1
                    break
                warm.append(time.monotonic() - began)
            results["hotkey_warm_presses_missed"] = missed
            results["hotkey_to_painted_warm_s"] = (
                sorted(warm)[len(warm) // 2] if warm else float("nan")
            )

            app.send("hide")
            wait_for(lambda: app.state()["popup_pid"] is None, 30, "the unload")
            time.sleep(1.0)
            results["idle_pss_after_unload_mb"] = pss_mb(pid)
            results["idle_wakeups_after_unload_per_s"] = wakeups_per_s(pid)
        finally:
            if app is not None:
                app.stop()
            desktop.stop()
    lines = [
        ("start to tray icon ready", f"{results['start_to_tray_ready_s']:.2f} s"),
        ("idle PSS, popup never opened", f"{results['idle_pss_never_opened_mb']:.1f} MB"),
        ("idle wakeups/s, never opened", f"{results['idle_wakeups_never_opened_per_s']:.1f}"),
        ("PSS with the popup open", f"{results['pss_popup_open_mb']:.1f} MB"),
        ("idle PSS after unload", f"{results['idle_pss_after_unload_mb']:.1f} MB"),
        ("idle wakeups/s after unload", f"{results['idle_wakeups_after_unload_per_s']:.1f}"),
        ("hotkey to page booted, cold", f"{results['hotkey_to_page_cold_s']:.2f} s"),
        ("hotkey to painted, warm", f"{results['hotkey_to_painted_warm_s'] * 1000:.0f} ms"),
        ("warm hotkey presses missed", f"{results['hotkey_warm_presses_missed']}"),
    ]
    for label, value in lines:
        print(f"shell   {label:<36}{value:>12}")
    return results


if __name__ == "__main__":
    bench_shell()
