"""Reaping commands whose app was killed: only marked processes, only when their owner is gone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.waiting import eventually
from tray_app.tools.builtin.orphans import reap_orphaned_commands
from tray_app.tools.builtin.process import RUN_ID_ENV


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


def _wait_marked(proc: subprocess.Popen[bytes], marker: str) -> None:
    """Until the child has exec'ed with its marker (right after fork it has our environment)."""
    wanted = f"{RUN_ID_ENV}={marker}".encode()
    environ = Path(f"/proc/{proc.pid}/environ")
    eventually(
        lambda: wanted in environ.read_bytes().split(b"\0"),
        timeout=10,
        message="the child to start with its marker",
        ignoring=(OSError,),
    )


def test_marked_processes_of_a_gone_owner_are_killed_and_others_spared() -> None:
    mine = _spawn(f"{os.getpid()}-def")  # owner alive: a running call of this process
    unmarked = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    orphans: list[subprocess.Popen[bytes]] = []
    try:
        _wait_marked(mine, f"{os.getpid()}-def")
        # Any metona-tray start elsewhere (a parallel test) reaps too: try until ours did it.
        for _ in range(5):
            marker = f"{_dead_pid()}-abc"
            orphan = _spawn(marker)
            orphans.append(orphan)
            _wait_marked(orphan, marker)
            killed = reap_orphaned_commands()
            assert orphan.wait(10) == -9
            assert mine.pid not in killed and unmarked.pid not in killed
            if orphan.pid in killed:
                break
        else:
            raise AssertionError("the reaper never killed the orphan itself")
        assert mine.poll() is None and unmarked.poll() is None
    finally:
        for proc in (*orphans, mine, unmarked):
            proc.kill()
            proc.wait(10)


def test_the_owner_is_read_wherever_the_mark_sits_in_the_environment() -> None:
    from tray_app.tools.builtin.orphans import _owner
    from tray_app.tools.builtin.process import RUN_ID_ENV

    mark = f"{RUN_ID_ENV}=4242-abc".encode()
    assert _owner(mark) == 4242
    assert _owner(b"A=1\0" + mark + b"\0B=2\0") == 4242
    assert _owner(b"A=1\0" + mark) == 4242
    assert _owner(b"X" + mark + b"\0") is None  # part of another variable's name
    assert _owner(b"A=" + mark + b"\0") is None  # inside another variable's value
    assert _owner(f"{RUN_ID_ENV}=notapid-x".encode()) is None
    assert _owner(b"") is None
