"""Opening a large chat history skips the whole-file ``quick_check`` only when the file is exactly
as the app's last clean close left it (``store.verified``); a page damaged after that close,
a crash's left-over log, or a file copied over it are still checked and refused as before."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tray_app.base.errors import StoreError
from tray_app.base.paths import AppPaths
from tray_app.store import db as db_module
from tray_app.store import verified
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import MessageRecord

TEXT = "第{i}条 ⚠️🙂 \u202eevil\u202c " + "词" * 13_000  # ~40 KB of UTF-8 each


def fill(path: Path, count: int = 220) -> None:
    """A history (by default over ``STAMP_FROM_BYTES``, 8 MB), closed cleanly."""
    chats = SQLiteChats(open_database(path))
    session = chats.create_session(model="m", workspace=None, title="长 chat 🙂")
    for i in range(count):
        text = TEXT.format(i=i)
        chats.add_message(MessageRecord(session_id=session.id, role="user", content=text))
    chats.close()
    assert (path.stat().st_size >= verified.STAMP_FROM_BYTES) == (count >= 220)


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every whole-file check open_database runs."""
    seen: list[Path] = []
    real = db_module.check_integrity

    def spy(path: Path, **kwargs: float) -> None:
        seen.append(path)
        real(path, **kwargs)

    monkeypatch.setattr(db_module, "check_integrity", spy)
    return seen


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One large history for the module (filling it is the slow part)."""
    path = tmp_path_factory.mktemp("template") / "chats.sqlite3"
    fill(path)
    return path


def cleanly_closed_copy(template: Path, path: Path) -> Path:
    shutil.copyfile(template, path)
    open_database(path).close()  # checked in full (a new file), then stamped by the clean close
    assert verified.stamp_path(path).exists()
    return path


@pytest.fixture
def big(app_paths: AppPaths, template: Path) -> Path:
    return cleanly_closed_copy(template, app_paths.database_file)


def test_a_cleanly_closed_history_opens_without_reading_it_all(
    big: Path, checks: list[Path]
) -> None:
    for _ in range(2):  # and the close of a skipped open stamps it again
        chats = SQLiteChats(open_database(big))
        assert len(chats.list_sessions()) == 1
        chats.close()
    assert checks == []


def test_a_small_history_is_checked_every_time(app_paths: AppPaths, checks: list[Path]) -> None:
    path = app_paths.database_file
    fill(path, count=3)
    open_database(path).close()
    open_database(path).close()
    assert checks == [path, path]
    assert not verified.stamp_path(path).exists()


@pytest.mark.parametrize("where", ["second", "middle", "last"])
def test_a_page_damaged_after_a_clean_close_is_still_refused(
    big: Path, checks: list[Path], where: str
) -> None:
    pages = big.stat().st_size // 4096
    page = {"second": 2, "middle": pages // 2, "last": pages}[where]
    with open(big, "r+b") as handle:  # at once after the close: the same second, same size
        handle.seek((page - 1) * 4096)
        handle.write(os.urandom(4096))
    damaged = big.read_bytes()
    with pytest.raises(StoreError, match="damaged"):
        open_database(big)
    assert checks == [big]
    assert big.read_bytes() == damaged


def test_a_crash_s_left_over_log_is_checked(big: Path, checks: list[Path]) -> None:
    other = sqlite3.connect(big, isolation_level=None)  # another process, still writing
    try:
        other.execute("UPDATE sessions SET title = '崩溃 🙂'")
        assert Path(f"{big}-wal").stat().st_size > 0
        SQLiteChats(open_database(big)).close()
    finally:
        other.close()
    assert checks == [big]


def test_a_file_copied_over_it_is_checked(big: Path, tmp_path: Path, checks: list[Path]) -> None:
    copy = tmp_path / "copy.sqlite3"
    shutil.copy2(big, copy)  # same bytes, same size and modification time: another inode
    os.replace(copy, big)
    open_database(big).close()
    assert checks == [big]


def test_a_broken_stamp_means_a_full_check(big: Path, checks: list[Path]) -> None:
    verified.stamp_path(big).write_bytes(b"\x00{not json \xff")
    open_database(big).close()
    assert checks == [big]


def test_the_real_cli_refuses_a_history_damaged_after_its_clean_close(
    app_paths: AppPaths, template: Path
) -> None:
    path = cleanly_closed_copy(template, app_paths.database_file)
    with open(path, "r+b") as handle:
        handle.seek(path.stat().st_size // 2 // 4096 * 4096)
        handle.write(os.urandom(4096))
    damaged = path.read_bytes()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    done = subprocess.run(
        [sys.executable, "-m", "tray_app", "sessions"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    assert done.returncode == 1
    assert "damaged" in done.stderr
    assert path.read_bytes() == damaged
