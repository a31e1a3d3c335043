"""Truthful results when the undo journal's folder is full or read-only.

Real mounts in a private mount namespace (``unshare -m``; root only, skipped otherwise: root
ignores permissions, so only a mount can make a folder read-only or full): a tmpfs the child
fills to the last byte, a tmpfs too small for the copy, and a read-only bind mount. The tools
run in a child process (``journal_child``) through ``Toolbox.execute``; the parent checks the
results and the files on disk. A change is refused before the file is touched, or, with "allow
changes without undo" on, made with a result that says undo is not available.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tray_app.tools.journal.journal import Journal

REPO = Path(__file__).resolve().parents[2]
CAN_MOUNT = (
    sys.platform == "linux"
    and os.geteuid() == 0
    and shutil.which("unshare") is not None
    and subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode == 0
)
pytestmark = pytest.mark.skipif(not CAN_MOUNT, reason="needs root and mount namespaces")

OLD = "旧的内容 📄 old content\n" * 50
NEW = "新的内容 ✨ new content\n"
NAME = "笔记 📝.txt"

MOUNTS = {
    # A tmpfs the child fills completely after the journal's index is created.
    "full": 'mount -t tmpfs -o size=512k,mode=700 tmpfs "$0"',
    # Room for the index but not for a copy of a 1 MB file.
    "tight": 'mount -t tmpfs -o size=384k,mode=700 tmpfs "$0"',
    "read-only": 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0"',
}


def run_child(journal: Path, mount: str, config: dict[str, Any]) -> dict[str, Any]:
    script = f'{MOUNTS[mount]} && exec "$@"'
    argv = [
        *("unshare", "-m", "--propagation", "private", "sh", "-c", script, str(journal)),
        *(sys.executable, "-m", "tests.tools.journal_child", json.dumps(config)),
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    journal, work = tmp_path / "journal", tmp_path / "work"
    journal.mkdir()
    work.mkdir()
    (work / NAME).write_text(OLD, encoding="utf-8")
    (work / "删除我 🗑️.txt").write_text(OLD, encoding="utf-8")
    (work / "big.bin").write_bytes(os.urandom(1 << 20))
    return journal, work


def ops(work: Path) -> list[Any]:
    return [
        ["write_file", {"path": NAME, "content": NEW}],
        ["write_file", {"path": "新文件 🆕/new.txt", "content": NEW}],
        ["delete_file", {"path": "删除我 🗑️.txt"}],
        ["create_directory", {"path": "新文件夹 📁/子"}],
        ["move_file", {"source": NAME, "destination": "moved 🚚.txt"}],
    ]


def untouched(work: Path) -> None:
    assert (work / NAME).read_text(encoding="utf-8") == OLD
    assert (work / "删除我 🗑️.txt").read_text(encoding="utf-8") == OLD
    assert not (work / "新文件 🆕").exists()
    assert not (work / "新文件夹 📁").exists()
    assert not (work / "moved 🚚.txt").exists()
    assert sorted(p.name for p in work.iterdir()) == sorted([NAME, "删除我 🗑️.txt", "big.bin"])


@pytest.mark.parametrize("mount", ["full", "read-only"])
def test_every_change_is_refused_before_the_file_is_touched(
    layout: tuple[Path, Path], mount: str
) -> None:
    journal, work = layout
    if mount == "read-only":
        Journal(journal).close()  # an index from earlier runs, then the folder turns read-only
    out = run_child(
        journal,
        mount,
        {"journal": str(journal), "work": str(work), "ops": ops(work), "fill": mount == "full"},
    )
    if mount == "full":
        assert out["filled"] > 0
    why = "full" if mount == "full" else "read-only"
    for result in out["results"]:
        assert result["success"] is False, result
        assert "refused before changing anything" in result["error"], result
        assert why in result["error"] and str(journal) in result["error"], result
        assert "allow changes without undo" in result["error"]
    untouched(work)
    assert out["entries"] == []


def test_a_copy_that_does_not_fit_refuses_the_change(layout: tuple[Path, Path]) -> None:
    journal, work = layout
    config = {
        "journal": str(journal),
        "work": str(work),
        "ops": [
            ["delete_file", {"path": "big.bin"}],
            ["write_file", {"path": "big.bin", "content": NEW}],
            ["write_file", {"path": NAME, "content": NEW}],  # a small copy still fits
        ],
    }
    out = run_child(journal, "tight", config)
    big, over, small = out["results"]
    for refused in (big, over):
        assert refused["success"] is False and "is full" in refused["error"], refused
    assert (work / "big.bin").stat().st_size == 1 << 20
    assert small["success"] is True and "undo" not in small, small
    assert (work / NAME).read_text(encoding="utf-8") == NEW
    (entry,) = out["entries"]
    assert entry["path"] == str(work / NAME) and entry["undoable"] is True


@pytest.mark.parametrize("mount", ["full", "read-only"])
def test_with_changes_without_undo_allowed_they_run_and_say_so(
    layout: tuple[Path, Path], mount: str
) -> None:
    journal, work = layout
    if mount == "read-only":
        earlier = work / "earlier.txt"
        earlier.write_text("before", encoding="utf-8")
        kept = Journal(journal)
        entry = kept.record(call_id="earlier", tool="write_file", path=earlier)
        earlier.write_text("after", encoding="utf-8")
        assert kept.commit(entry) is None
        kept.close()
    config = {
        "journal": str(journal),
        "work": str(work),
        "ops": ops(work),
        "fill": mount == "full",
        "optional": True,
    }
    out = run_child(journal, mount, config)
    why = "full" if mount == "full" else "read-only"
    for result in out["results"]:
        assert result["success"] is True, result
        assert result["undo"] == "unavailable", result
        assert result["undoNote"].startswith("undo is not available") and why in result["undoNote"]
    assert not (work / NAME).exists()
    assert (work / "moved 🚚.txt").read_text(encoding="utf-8") == NEW
    assert (work / "新文件 🆕" / "new.txt").read_text(encoding="utf-8") == NEW
    assert not (work / "删除我 🗑️.txt").exists()
    assert (work / "新文件夹 📁" / "子").is_dir()
    if mount == "read-only":  # the earlier change is still listed, and undoable once writable
        assert [e["call_id"] for e in out["entries"]] == ["earlier"]
        assert Journal(journal).undo("earlier")["success"] is True
        assert (work / "earlier.txt").read_text(encoding="utf-8") == "before"
