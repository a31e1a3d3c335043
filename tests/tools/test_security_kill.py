"""kill -9 in the middle of a large write_file leaves the old content or the new, never half.

A child process runs write_file's handler on a 50 MB content (the 5 MB cap is raised in the
child only). The parent waits for the temp file to show up, then sends SIGKILL. Two variants
make the child stall at a known point (after the first chunk; before fsync finishes) so the
kill is certain to land mid-write; the free-running one checks the real timing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.waiting import eventually
from tray_app.base import atomic
from tray_app.tools.fs import fs_write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL semantics")

REPO = Path(__file__).resolve().parents[2]
NEW_SIZE = 50 * 1024 * 1024
OLD = b"O" * (1024 * 1024 + 7)

CHILD = r"""
import os, sys, time
from pathlib import Path
from tray_app.tools.builtin import write_file as write_module
from tray_app.tools.base import ToolContext
from tray_app.tools.builtin.write_file import WriteFileArgs
from tray_app.tools.sandbox.policy import SandboxPolicy

work, home, mode, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
write_module.MAX_WRITE_BYTES = 2 * size
content = "N" * size
if mode == "stall-after-first-chunk":
    real_write, calls = os.write, [0]
    def write(fd, data):
        calls[0] += 1
        if calls[0] > 1:
            time.sleep(300)
        return real_write(fd, data)
    os.write = write
elif mode == "stall-in-fsync":
    os.fsync = lambda fd: time.sleep(300)
policy = SandboxPolicy(allowed_dirs=[work], home=Path(home))
args = WriteFileArgs(path="big.txt", content=content)
print(write_module.write_file(ToolContext(policy=policy), args))
"""


def temp_files(folder: Path) -> list[Path]:
    return list(folder.glob(f"{fs_write.TEMP_PREFIX}*{fs_write.TEMP_SUFFIX}"))


def start_child(layout, mode: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(layout.work), str(layout.home), mode, str(NEW_SIZE)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def temp_size_at_least(folder: Path, size: int) -> bool:
    for temp in temp_files(folder):
        try:
            if temp.stat().st_size >= size:
                return True
        except FileNotFoundError:
            pass
    return False


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("mode", "written_before_kill"),
    [("stall-after-first-chunk", atomic.WRITE_CHUNK), ("stall-in-fsync", NEW_SIZE)],
)
def test_kill_mid_write_keeps_the_old_content(layout, mode, written_before_kill):
    target = layout.work / "big.txt"
    target.write_bytes(OLD)
    child = start_child(layout, mode)
    try:
        eventually(
            lambda: (
                temp_size_at_least(layout.work, written_before_kill) or child.poll() is not None
            ),
            timeout=60,
        )
        if not temp_size_at_least(layout.work, written_before_kill):
            pytest.fail(child.stderr.read().decode() if child.poll() is not None else "no temp")
        assert child.poll() is None, "the child finished before it could be killed"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert target.read_bytes() == OLD
    leftovers = temp_files(layout.work)
    assert len(leftovers) == 1 and leftovers[0].stat().st_size >= written_before_kill


@pytest.mark.timeout(120)
def test_kill_at_a_real_moment_leaves_old_or_new(layout):
    target = layout.work / "big.txt"
    target.write_bytes(OLD)
    child = start_child(layout, "free")
    try:
        # Polled often, so the kill lands somewhere inside the copy rather than after it.
        eventually(
            lambda: bool(temp_files(layout.work)) or child.poll() is not None,
            timeout=60,
            interval=0.0005,
        )
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=30)
    data = target.read_bytes()
    assert data == OLD or (len(data) == NEW_SIZE and data.count(b"N") == NEW_SIZE)
