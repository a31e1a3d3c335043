"""``tray_app.base.atomic``: a file is replaced whole or not at all, by every writer of the app."""

from __future__ import annotations

import ast
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tray_app.base import atomic
from tray_app.base.atomic import atomic_write, fsync_folder

REPO = Path(__file__).resolve().parents[2]
NAME = "設定 🌀 \u202eevil.json"

CHILD = """
import os, sys
from pathlib import Path
from tray_app.base import atomic

target, stage = Path(sys.argv[1]), sys.argv[2]
real_replace, real_fsync = os.replace, os.fsync
if stage == "before-rename":
    def replace(src, dst, **dir_fds):
        os._exit(9)  # killed between the temp file's fsync and the rename
    atomic.os.replace = replace
elif stage == "mid-write":
    real_write, calls = os.write, [0]
    def write(fd, data):
        calls[0] += 1
        if calls[0] > 1:
            os._exit(9)  # killed with half the data written
        return real_write(fd, data)
    atomic.os.write = write
atomic.atomic_write(target, b"N" * (3 * atomic.WRITE_CHUNK), prefix=".t-", suffix=".tmp")
print("done")
"""


@pytest.mark.parametrize("stage", ["before-rename", "mid-write"])
def test_a_crash_before_the_rename_leaves_the_old_file(tmp_path: Path, stage: str) -> None:
    target = tmp_path / NAME
    target.write_bytes(b"old \xe6\x97\xa7\n")
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(target), stage],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert child.returncode == 9, child.stderr.decode()
    assert target.read_bytes() == b"old \xe6\x97\xa7\n"
    leftovers = list(tmp_path.glob(".t-*.tmp"))
    assert len(leftovers) == 1  # findable by its prefix, for a sweep
    if stage == "before-rename":
        assert leftovers[0].stat().st_size == 3 * atomic.WRITE_CHUNK


def test_it_replaces_the_whole_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / NAME
    target.write_bytes(b"x" * 10_000)
    data = ("第一行\r\n" * 300_000).encode("utf-8")  # several chunks, CRLF kept
    atomic_write(target, data)
    assert target.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == [NAME]


def test_a_failed_write_removes_its_temp_and_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(OSError, match="No space"):
        atomic_write(target, b"new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_modes_new_private_and_kept(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new", b"1")
        atomic_write(tmp_path / "private", b"2", private=True)
        kept = tmp_path / "kept"
        kept.write_bytes(b"old")
        kept.chmod(0o640)
        atomic_write(kept, b"3", like=kept.stat())
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_bytes() == b"3"


def test_a_link_at_the_target_is_replaced_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    link = tmp_path / "link.txt"
    link.symlink_to(outside)
    atomic_write(link, b"new")
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert outside.read_text() == "keep me"


def test_fsync_folder_is_best_effort(tmp_path: Path) -> None:
    fsync_folder(tmp_path)
    fsync_folder(tmp_path / "missing")
    fsync_folder()
    if os.name == "posix":
        fd = os.open(tmp_path, getattr(os, "O_PATH", os.O_RDONLY))
        try:
            fsync_folder(dir_fd=fd)
        finally:
            os.close(fd)


WRITERS = [
    "tray_app/store/settings.py",
    "tray_app/tools/builtin/write_file.py",
    "tray_app/tools/builtin/edit_file.py",
    "tray_app/desktop/autostart.py",
    "tray_app/desktop/popup/export_file.py",
    "tray_app/tools/journal/restore.py",
]


@pytest.mark.parametrize("module", WRITERS)
def test_every_writer_uses_the_one_helper(module: str) -> None:
    """No writer keeps a copy of its own: none calls fsync, mkstemp or write_bytes itself."""
    tree = ast.parse((REPO / module).read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "tray_app.base.atomic"
        for alias in node.names
    }
    assert imported & {"atomic_write", "write_all", "fsync_folder"}
    called = {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert not called & {"mkstemp", "write_bytes"}, module
    if (
        module != "tray_app/tools/journal/restore.py"
    ):  # it fsyncs each restored file before placing it
        assert "fsync" not in called, module
