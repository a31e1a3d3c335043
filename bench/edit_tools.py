"""edit_file and the other file tools declared in their own modules on large inputs: one line
changed in a long file (preview diff + write), a whitespace-tolerant match, a failed match that
looks for the nearest lines, and a directory tree. Real files in a temp folder, through Toolbox.

    python -m bench.edit_tools
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox


def _timed(fn: Callable[[], object], repeat: int = 5) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def bench_edit_tools() -> None:
    with tempfile.TemporaryDirectory(prefix="metona-bench-edit-") as tmp:
        root = Path(os.path.realpath(tmp))
        box = Toolbox(SandboxPolicy(allowed_dirs=[root], workspace=root, home=root))
        for lines in (2_000, 100_000):
            target = root / f"long{lines}.txt"
            target.write_text("".join(f"    line {n} = {n * 7}\n" for n in range(lines)))
            middle = lines // 2
            args = {
                "path": target.name,
                "edits": [{"old_text": f"line {middle} =", "new_text": "x ="}],
            }
            preview = _timed(partial(box.preview, "edit_file", args))
            back = {
                "path": target.name,
                "edits": [{"old_text": "x =", "new_text": f"line {middle} ="}],
            }

            def round_trip(args: dict[str, Any] = args, back: dict[str, Any] = back) -> None:
                assert box.execute("edit_file", args)["success"]
                assert box.execute("edit_file", back)["success"]

            both = _timed(round_trip) / 2
            fuzzy = {
                "path": target.name,
                "edits": [{"old_text": f"line   {middle} =  {middle * 7}", "new_text": "y"}],
            }
            loose = _timed(partial(box.preview, "edit_file", fuzzy), repeat=3)
            missing = {
                "path": target.name,
                "edits": [{"old_text": "no such text here", "new_text": "z"}],
            }
            nearest = _timed(partial(box.execute, "edit_file", missing), repeat=3)
            print(f"edit    preview, 1 line of {lines:>7,} lines    {preview * 1000:10.1f} ms")
            print(f"edit    write, 1 line of {lines:>7,} lines      {both * 1000:10.1f} ms")
            print(f"edit    whitespace match, {lines:>7,} lines     {loose * 1000:10.1f} ms")
            print(f"edit    no match + nearest, {lines:>7,} lines   {nearest * 1000:10.1f} ms")
        # The model's everyday mistakes on big files (each took 11 s to minutes before).
        (root / "big.txt").write_text("A(x) = 1\n" * 580_000)  # 5 MB
        one_char = {"path": "big.txt", "edits": [{"old_text": "A", "new_text": "B"}]}
        many = _timed(partial(box.preview, "edit_file", one_char), repeat=3)
        (root / "min.js").write_text("var a=function(b){return b+1};" * 35_000)  # 1 MB, 1 line
        noise = {"path": "min.js", "edits": [{"old_text": "q w e r t y " * 420, "new_text": ""}]}
        lost = _timed(partial(box.preview, "edit_file", noise), repeat=3)
        print(f"edit    1-character old_text, 5 MB         {many * 1000:10.1f} ms")
        print(f"edit    5 KB matching nothing, 1 MB line   {lost * 1000:10.1f} ms")
        tree = root / "tree"
        for d in range(50):
            folder = tree / f"pkg{d}" / "src"
            folder.mkdir(parents=True)
            for f in range(40):
                (folder / f"mod{f}.py").write_text("x\n")
        took = _timed(lambda: box.execute("directory_tree", {"path": "tree", "max_depth": 3}))
        print(f"tools   directory_tree (capped at 500)      {took * 1000:10.1f} ms")


if __name__ == "__main__":
    bench_edit_tools()
