"""Reaping commands whose app was killed: only marked processes, only when their owner is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tray_app.tools.orphans import reap_orphaned_commands
from tray_app.tools.process import RUN_ID_ENV


def _spawn(marker: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env[RUN_ID_ENV] = marker
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], env=env, start_new_session=True
    )


def _dead_pid() -> int:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


def test_marked_processes_of_a_gone_owner_are_killed_and_others_spared() -> None:
    orphan = _spawn(f"{_dead_pid()}-abc")
    mine = _spawn(f"{os.getpid()}-def")  # owner alive: a running call of this process
    unmarked = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(f"/proc/{orphan.pid}/environ"):
            assert time.monotonic() < deadline
        killed = reap_orphaned_commands()
        assert orphan.pid in killed
        assert orphan.wait(10) == -9
        assert mine.poll() is None and unmarked.poll() is None
        assert mine.pid not in killed and unmarked.pid not in killed
    finally:
        for proc in (orphan, mine, unmarked):
            proc.kill()
            proc.wait(10)
