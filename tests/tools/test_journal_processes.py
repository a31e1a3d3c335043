"""One journal, many processes: real processes share one journal folder at the same time.

Each worker is a separate Python process that records, changes and commits files through the
journal while the others do the same and while new journals start up (and sweep the folder).
Afterwards every change each process recorded is listed in every process and can be undone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tray_app.tools.journal.journal import Journal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process model")

REPO = Path(__file__).resolve().parents[2]

WORKER = """
import sys
from pathlib import Path
from tray_app.tools.journal.journal import Journal

root, work, name, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
journal = Journal(root)
for i in range(count):
    target = work / f"{name} 文件 {i} 🧪.txt"
    entry = journal.record(call_id=f"{name}-{i}", tool="write_file", path=target)
    target.write_text(f"{name} wrote {i} ✅", encoding="utf-8")
    assert journal.commit(entry) is None
    if i % 5 == 0:
        Journal(root).close()  # another process starting up sweeps the folder meanwhile
print("ok")
"""


def start(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [sys.executable, "-c", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_concurrent_processes_keep_every_change_undoable(tmp_path: Path) -> None:
    root, work = tmp_path / "journal", tmp_path / "work"
    work.mkdir()
    names = ["甲", "乙", "丙"]
    count = 15
    for name in names:  # half the files exist before: their old content must come back
        for i in range(0, count, 2):
            (work / f"{name} 文件 {i} 🧪.txt").write_text(f"original {name} {i}", encoding="utf-8")
    before = {p.name: p.read_text(encoding="utf-8") for p in work.iterdir()}
    workers = [start(WORKER, str(root), str(work), name, str(count)) for name in names]
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0 and out.strip() == "ok", err

    journal = Journal(root)
    listed = journal.entries()
    assert len(listed) == len(names) * count
    assert {e["call_id"] for e in listed} == {f"{n}-{i}" for n in names for i in range(count)}
    assert all(e["undoable"] for e in listed)
    assert sorted(e["seq"] for e in listed) == list(range(1, len(listed) + 1))
    while journal.undo_last()["success"]:
        pass
    after = {p.name: p.read_text(encoding="utf-8") for p in work.iterdir()}
    assert after == before
    assert not any((root / "blobs").iterdir())


def test_each_process_sees_and_undoes_the_others_changes(tmp_path: Path) -> None:
    root, work = tmp_path / "journal", tmp_path / "work"
    work.mkdir()
    target = work / "共享 🤝.txt"
    target.write_text("v1", encoding="utf-8")
    here = Journal(root)  # opened first, like the desktop app that keeps running
    worker = start(WORKER, str(root), str(work), "other", "1")
    assert worker.communicate(timeout=60)[1] == ""
    (theirs,) = here.entries()
    assert theirs["call_id"] == "other-0" and here.can_undo("other-0")

    entry = here.record(call_id="mine", tool="write_file", path=target)
    target.write_text("v2", encoding="utf-8")
    here.commit(entry)
    code = (
        "import sys, json\nfrom pathlib import Path\n"
        "from tray_app.tools.journal.journal import Journal\n"
        "j = Journal(Path(sys.argv[1]))\n"
        "print(json.dumps([j.undo('mine'), [e['call_id'] for e in j.entries()]]))\n"
    )
    undo = start(code, str(root))
    out, err = undo.communicate(timeout=60)
    result, seen = json.loads(out)
    assert result["success"] is True and result["action"] == "restored", err
    assert seen == ["mine", "other-0"]
    assert target.read_text(encoding="utf-8") == "v1"
    assert here.can_undo("mine") is False
    again = here.undo("mine")
    assert again["success"] is False and "already undone" in again["error"]


def test_a_change_cut_off_before_its_commit_is_kept_and_undoable(tmp_path: Path) -> None:
    """Killed after the file changed but before the commit: the next start keeps the change."""
    root, work = tmp_path / "journal", tmp_path / "work"
    work.mkdir()
    target = work / "被打断 ⚡.txt"
    target.write_text("before the kill", encoding="utf-8")
    config = {"journal": str(root), "work": str(work), "ops": [["write-then-die", str(target)]]}
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run(
        [sys.executable, "-m", "tests.tools.journal_child", json.dumps(config)],
        check=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )
    assert "killed" in target.read_text(encoding="utf-8")
    journal = Journal(root)
    (entry,) = journal.entries()
    assert entry["undoable"] is True and entry["call_id"] == "die0"
    assert journal.undo_last()["success"] is True
    assert target.read_text(encoding="utf-8") == "before the kill"
