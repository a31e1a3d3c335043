"""What a lasting permission rule costs a tool call: the look-up with 1,000 rules (the
target is under 0.1 ms a call). Real folders in a temp folder, so the folder checks (is it
still not a link?) touch the disk as they do in the app.

    python -m bench.rules
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from tray_app.tools.rule_paths import call_paths
from tray_app.tools.tool_rules import RuleBook

RULES = 1_000
CALLS = 20_000


def bench_rules() -> None:
    with tempfile.TemporaryDirectory(prefix="metona-bench-rules-") as tmp:
        root = Path(os.path.realpath(tmp))
        entries: list[object] = []
        for n in range(RULES):
            folder = root / f"p{n % 50}" / f"d{n}"
            folder.mkdir(parents=True)
            tool = ("write_file", "edit_file", "delete_file", "read_file")[n % 4]
            action = ("allow", "ask", "deny")[n % 3]
            entries.append({"tool": tool, "folder": str(folder), "action": action})
        started = time.perf_counter()
        book = RuleBook(entries)
        built = time.perf_counter() - started
        target = root / "p9" / "d609"  # an allow rule of edit_file, deep in the tree
        paths = call_paths([str(target / "sub" / "file.txt")], str(root))
        miss = call_paths([str(root / "elsewhere" / "x.txt")], str(root))
        hit = book.decide("edit_file", "builtin", paths)
        assert hit is not None and hit.action == "allow"
        best = {"hit": float("inf"), "miss": float("inf"), "paths": float("inf")}
        for _ in range(3):
            started = time.perf_counter()
            for _ in range(CALLS):
                book.decide("edit_file", "builtin", paths)
            best["hit"] = min(best["hit"], (time.perf_counter() - started) / CALLS)
            started = time.perf_counter()
            for _ in range(CALLS):
                book.decide("write_file", "builtin", miss)
            best["miss"] = min(best["miss"], (time.perf_counter() - started) / CALLS)
            started = time.perf_counter()
            for _ in range(CALLS // 10):
                call_paths([str(target / "sub" / "file.txt")], str(root))
            best["paths"] = min(best["paths"], (time.perf_counter() - started) / (CALLS // 10))
    print(f"rules   build 1,000 rules (folder checks)    {built * 1000:10.1f} ms")
    print(f"rules   look-up, 1,000 rules, a rule covers  {best['hit'] * 1000:10.4f} ms")
    print(f"rules   look-up, 1,000 rules, none covers    {best['miss'] * 1000:10.4f} ms")
    print(f"rules   a call's paths (realpath)            {best['paths'] * 1000:10.4f} ms")


if __name__ == "__main__":
    bench_rules()
