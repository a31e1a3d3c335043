"""The undo journal's cost: write_file with and without it, listing, opening (with its sweep),
undo, and many processes recording into one journal at once. Real files and the real SQLite
index in a temp folder (the index syncs to disk on every change: a tmpfs /tmp makes it look
cheaper than it is).

    python -m bench.journal
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.journal.journal import Journal
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

WRITES = 200
WORKER = """
import sys
from pathlib import Path
from tray_app.tools.journal.journal import Journal
root, work, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
journal = Journal(root)
for i in range(50):
    target = work / f"{name}-{i}.txt"
    entry = journal.record(call_id=f"{name}-{i}", tool="write_file", path=target)
    target.write_text("x")
    journal.commit(entry)
"""


def _writes(root: Path, journal: Journal | None) -> float:
    work = root / "work"
    work.mkdir(parents=True, exist_ok=True)
    policy = SandboxPolicy(allowed_dirs=[work], workspace=work, home=root / "home")
    box = Toolbox(policy, registry=ToolRegistry(FILE_TOOLS), journal=journal)
    start = time.perf_counter()
    for i in range(WRITES):
        args = {"path": f"f{i % 50}.txt", "content": "x" * 1000 + str(i)}
        assert box.execute("write_file", args, call_id=f"c{i}")["success"]
    return (time.perf_counter() - start) / WRITES


def bench_journal() -> None:
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="metona-bench-journal-") as tmp:
        root = Path(os.path.realpath(tmp))
        bare = _writes(root / "bare", None)
        journal = Journal(root / "journal")
        kept = _writes(root / "kept", journal)
        start = time.perf_counter()
        count = len(journal.entries())
        listing = time.perf_counter() - start
        start = time.perf_counter()
        Journal(root / "journal").close()
        opening = time.perf_counter() - start
        start = time.perf_counter()
        undone = sum(1 for _ in range(count) if journal.undo_last()["success"])
        undo = (time.perf_counter() - start) / max(undone, 1)
        shared = root / "shared"
        (shared / "work").mkdir(parents=True)
        env = dict(os.environ, PYTHONPATH=str(here))
        start = time.perf_counter()
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", WORKER, str(shared / "j"), str(shared / "work"), f"p{n}"],
                env=env,
            )
            for n in range(4)
        ]
        for proc in procs:
            proc.wait(timeout=600)
        together = time.perf_counter() - start
        recorded = len(Journal(shared / "j").entries())
    print(f"journal write_file without / with undo    {bare * 1000:7.1f} / {kept * 1000:5.1f} ms")
    print(f"journal list {count} changes                    {listing * 1000:10.1f} ms")
    print(f"journal open (with the start-up sweep)      {opening * 1000:10.1f} ms")
    print(f"journal undo_last, each                     {undo * 1000:10.1f} ms")
    print(f"journal 4 processes x 50 changes at once    {together:10.1f} s ({recorded} kept)")


if __name__ == "__main__":
    bench_journal()
