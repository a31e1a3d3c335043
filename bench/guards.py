"""What binding approvals costs: every preview of write_file, edit_file, delete_file
and move_file hashes its target (sha256, up to 64 MB) and the agent loop makes the preview once
more just before an approved call runs. Real files in a temp folder.

    python -m bench.guards
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from tray_app.tools.sandbox.binding import file_binding
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

MB = 1024 * 1024


def _timed(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def bench_guards() -> None:
    with tempfile.TemporaryDirectory(prefix="metona-bench-guards-") as tmp:
        root = Path(os.path.realpath(tmp))
        box = Toolbox(SandboxPolicy(allowed_dirs=[root], workspace=root, home=root))
        for size in (1 * MB, 5 * MB, 50 * MB):
            target = root / f"big{size // MB}.txt"
            target.write_bytes(b"0123456789abcde\n" * (size // 16))
            bind = _timed(partial(file_binding, target))
            args = {"path": target.name, "content": "replaced\n"}
            preview = _timed(partial(box.preview, "write_file", args))
            print(
                f"guards  bind (sha256) {size // MB:>3} MB file            {bind * 1000:10.1f} ms"
            )
            print(
                f"guards  write_file preview over {size // MB:>3} MB      {preview * 1000:10.1f} ms"
            )
        folder = root / "tree"
        for n in range(2_000):
            sub = folder / f"d{n % 40}"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"f{n}.txt").write_text("x")
        tree_args = {"path": "tree", "recursive": True}
        tree = _timed(partial(box.preview, "delete_file", tree_args))
        print(f"guards  delete preview, 2,000-file tree       {tree * 1000:10.1f} ms")


if __name__ == "__main__":
    bench_guards()
