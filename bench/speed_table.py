"""Every speed measure beside its peer, as one table, and ``bench/results.json``.

Rows come from ``speed_peers`` (search, walk, ``--toggle``), ``speed_clients`` (the streaming
clients and the one-shot, against the official ``ollama`` and ``openai`` packages) and
``speed_turns`` (Core overhead, the long turn, the streaming save, the session list). The page
rows of the issue are measured by the page's own tests and bench, not here.

The app's modules are byte-compiled first, as an installed app's are: with
``PYTHONDONTWRITEBYTECODE`` set (as on the development machine) every start would otherwise
compile them again, and the peers' packages were compiled when pip installed them.

Numbers vary with the machine and its load; a target that is not met fails nothing.

    python -m bench.speed_table
"""

from __future__ import annotations

import compileall
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.peers_env import ROOT
from bench.speed_clients import bench_clients
from bench.speed_peers import bench_speed_peers
from bench.speed_turns import bench_turns_and_store

RESULTS = Path(__file__).with_name("results.json")


def header() -> None:
    print(f"{'measure':<44} {'ours':>12}  {'peer':<14} {'':>12}  ratio")


def bench_speed() -> list[dict[str, Any]]:
    compileall.compile_dir(ROOT / "tray_app", quiet=1)
    header()
    rows = bench_speed_peers()
    with tempfile.TemporaryDirectory(prefix="metona-bench-speed-") as tmp:
        root = Path(os.path.realpath(tmp))
        rows += bench_clients(root)
        rows += bench_turns_and_store(root)
    RESULTS.write_text(
        json.dumps(
            {
                "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "machine": f"{platform.machine()} {os.cpu_count()} CPUs, {platform.system()}",
                "python": platform.python_version(),
                "measures": rows,
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    return rows


def _ms(value: float) -> str:
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.3g} ms"


def markdown(rows: list[dict[str, Any]]) -> str:
    """The table for docs/performance.md."""
    lines = ["| measure | ours | peer | ratio | target |", "|---|---|---|---|---|"]
    for row in rows:
        if row.get("target_ms") is not None:
            target = f"<= {row['target_ms']} ms"
        elif row.get("target_ratio") is not None:
            target = f"<= {row['target_ratio']:g}x"
        else:
            target = "—"
        verdict = "" if row.get("met") is None else (" (met)" if row["met"] else " (not met)")
        lines.append(
            f"| {row['measure']} | {_ms(row['ours_ms'])} | {row['peer']} "
            f"{_ms(row['peer_ms'])} | {row['ratio']:.2f}x | {target}{verdict} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(bench_speed()))
