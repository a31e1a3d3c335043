"""The search, walk and start-up measures, side by side with their peers.

* content search over 1,000 files / 70 MB (a rare word): ``search_files`` vs ``rg`` run
  directly on the folder (the same bundled binary);
* a filename glob over 20,000 entries: ``search_files`` vs ``find -iname`` (both
  case-insensitive);
* ``metona-tray --toggle`` against a running instance (a real instance socket here): the whole
  process, vs the bare interpreter start (``python -c pass``) as the floor.

Each row: measure, ours, peer, ratio, target, printed and returned for ``results.json``.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tray_app.base.paths import AppPaths
from tray_app.desktop.instance.instance import SingleInstance
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.search import search_rg
from tray_app.tools.toolbox import Toolbox

WORDS = ["alpha", "beta", "gamma", "delta", "函数", "数据", "value", "return", "import", "🙂"]


def _pairs(
    ours: Callable[[], object], peer: Callable[[], object], repeat: int = 11
) -> tuple[float, float, float]:
    """Ours and the peer run alternately (a loaded machine slows both alike): the medians of
    each, and the median of the per-pair ratios."""
    ours(), peer()
    mine, theirs, ratios = [], [], []
    for _ in range(repeat):
        start = time.perf_counter()
        ours()
        middle = time.perf_counter()
        peer()
        end = time.perf_counter()
        mine.append(middle - start)
        theirs.append(end - middle)
        ratios.append((middle - start) / (end - middle))
    return statistics.median(mine), statistics.median(theirs), statistics.median(ratios)


def _ms(seconds: float) -> str:
    value = seconds * 1000
    return f"{value:9.1f}" if value >= 10 else f"{value:9.3f}"


def _row(
    measure: str,
    ours: float,
    peer: float,
    peer_name: str,
    target: float | None,
    ratio: float | None = None,
) -> dict[str, Any]:
    """Print one row of the table and return it for ``results.json``; ``target=None`` for a
    row that only informs."""
    if ratio is None:
        ratio = ours / peer if peer else float("inf")
    met = None if target is None else ratio <= target
    verdict = (
        "(no target)"
        if target is None
        else f"(target <= {target:g}x: {'met' if met else 'NOT met'})"
    )
    print(f"{measure:<44} {_ms(ours)} ms  {peer_name:<14} {_ms(peer)} ms  {ratio:5.2f}x  {verdict}")
    return {
        "measure": measure,
        "ours_ms": round(ours * 1000, 3),
        "peer": peer_name,
        "peer_ms": round(peer * 1000, 3),
        "ratio": round(ratio, 3),
        "target_ratio": target,
        "met": met,
    }


def _content_tree(root: Path) -> None:
    rnd = random.Random(13)
    lines = [" ".join(rnd.choice(WORDS) for _ in range(10)) + "\n" for _ in range(4000)]
    for d in range(20):
        folder = root / f"pkg{d}" / "src"
        folder.mkdir(parents=True)
        for f in range(50):
            start = rnd.randrange(0, 2800)
            text = "".join(lines[start : start + 1200])
            if (d * 50 + f) % 97 == 0:
                text += "the rare_needle is here\n"
            (folder / f"m{f}.txt").write_text(text)


def _glob_tree(root: Path) -> None:
    for d in range(200):
        folder = root / f"d{d:03}"
        folder.mkdir(parents=True)
        for f in range(99):
            (folder / f"file_{f}.py").touch()
    for d in range(0, 200, 10):
        (root / f"d{d:03}" / "README.md").touch()


def bench_search(root: Path) -> list[dict[str, Any]]:
    rows = []
    rg = search_rg.rg_binary()
    content, names = root / "content", root / "names"
    _content_tree(content)
    _glob_tree(names)
    box = Toolbox(SandboxPolicy(allowed_dirs=[root], workspace=root, home=root))
    query = {"path": "content", "query": "rare_needle", "search_type": "content"}
    found = box.execute("search_files", query)
    assert found["success"] and found["total_matches"] == 11, found
    if rg:
        command = [rg, "--no-config", "-i", "-F", "-n", "rare_needle", str(content)]
        ours, peer, ratio = _pairs(
            lambda: box.execute("search_files", query),
            lambda: subprocess.run(command, capture_output=True, check=True),
        )
        measure = "search_files content, 1,000 files / 70 MB"
        rows.append(_row(measure, ours, peer, "rg", 1.5, ratio))
    else:
        print("search_files content: no rg (the ripgrep package) here; not compared")
    glob = {"path": "names", "query": "*.md", "search_type": "filename", "max_results": 200}
    found = box.execute("search_files", glob)
    assert found["success"] and found["total_matches"] == 20 and not found["truncated"], found
    find = shutil.which("find")
    if find:
        command = [find, str(names), "-iname", "*.md"]
        ours, peer, ratio = _pairs(
            lambda: box.execute("search_files", glob),
            lambda: subprocess.run(command, capture_output=True, check=True),
        )
        rows.append(
            _row("filename glob over 20,000 entries", ours, peer, "find -iname", 3.0, ratio)
        )
    return rows


def bench_toggle(root: Path) -> list[dict[str, Any]]:
    """The whole ``--toggle`` process against a running instance; the floor is bare Python."""
    home = root / "toggle-home"
    instance = SingleInstance(AppPaths.under(home).runtime_dir)
    assert instance.acquire()
    instance.serve(lambda request: {"ok": True})
    env = {**os.environ, "METONA_HOME": str(home), "DISPLAY": os.environ.get("DISPLAY", ":0")}
    try:
        toggle = [sys.executable, "-m", "tray_app", "--toggle"]
        bare = [sys.executable, "-c", "pass"]
        ours, floor, _ = _pairs(
            lambda: subprocess.run(toggle, env=env, check=True),
            lambda: subprocess.run(bare, env=env, check=True),
        )
        cpu = [(_cpu_seconds(toggle, env), _cpu_seconds(bare, env)) for _ in range(11)]
    finally:
        instance.release()
    ratio = ours / floor
    met = "met" if ours <= 0.1 else "NOT met"
    print(
        f"{'metona-tray --toggle (whole process)':<44} {ours * 1000:9.1f} ms  "
        f"{'python -c pass':<14} {floor * 1000:8.1f} ms  {ratio:5.2f}x  (target <= 100 ms: {met})"
    )
    # The CPU the process itself spends: what a busy machine multiplies (no target of its own).
    mine, bare_cpu = (statistics.median(side) for side in zip(*cpu, strict=True))
    cpu_row = _row("metona-tray --toggle (CPU)", mine, bare_cpu, "python -c pass", None)
    return [
        {
            "measure": "metona-tray --toggle",
            "ours_ms": round(ours * 1000, 2),
            "peer": "python -c pass",
            "peer_ms": round(floor * 1000, 2),
            "ratio": round(ratio, 3),
            "target_ms": 100,
            "met": ours <= 0.1,
        },
        cpu_row,
    ]


def _cpu_seconds(command: list[str], env: dict[str, str]) -> float:
    """User + system CPU seconds of one whole child process."""
    child = subprocess.Popen(command, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise RuntimeError(f"{command[:4]} failed: {status}")
    return float(usage.ru_utime + usage.ru_stime)


def bench_speed_peers() -> list[dict[str, Any]]:
    """Search, walk and ``--toggle`` rows (``bench.speed_table`` writes them out)."""
    with tempfile.TemporaryDirectory(prefix="metona-bench-speed-") as tmp:
        root = Path(os.path.realpath(tmp))
        return bench_search(root) + bench_toggle(root)


if __name__ == "__main__":
    bench_speed_peers()
