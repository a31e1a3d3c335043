"""The installer's size: the PyInstaller folder unpacked, and the .deb and tar.gz made from it.

``make package`` runs this after the build (prints the sizes, records them); ``make bench``
reports the last build's (it does not build: that takes minutes). The row goes into
``bench/results.json`` under ``bundle``, next to the other measures, which are kept.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / "dist" / "metona-tray"
RESULTS = Path(__file__).with_name("results.json")
TARGET_MB = 120.0


def folder_size(folder: Path) -> tuple[int, int]:
    """Bytes and count of the regular files below ``folder`` (symlinks not followed)."""
    total = count = 0
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
                count += 1
    return total, count


def measure(bundle: Path = BUNDLE) -> dict[str, Any] | None:
    if not (bundle / "metona-tray").exists() and not (bundle / "metona-tray.exe").exists():
        return None
    size, count = folder_size(bundle)
    row: dict[str, Any] = {
        "unpacked_mb": round(size / 1e6, 1),
        "files": count,
        "target_mb": TARGET_MB,
        "met": size / 1e6 <= TARGET_MB,
    }
    for pattern, key in (("metona-tray_*.deb", "deb_mb"), ("metona-tray-*.tar.gz", "tar_gz_mb")):
        found = sorted(bundle.parent.glob(pattern), key=lambda p: p.stat().st_mtime)
        if found:
            row[key] = round(found[-1].stat().st_size / 1e6, 1)
    return row


def record(row: dict[str, Any]) -> None:
    try:
        saved = json.loads(RESULTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        saved = {}
    if not isinstance(saved, dict):
        saved = {}
    saved["bundle"] = row
    RESULTS.write_text(json.dumps(saved, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def bench_bundle() -> dict[str, Any] | None:
    row = measure()
    if row is None:
        print("bundle  not built (make package)")
        return None
    extra = "".join(
        f", {label} {row[key]:.1f} MB"
        for key, label in (("deb_mb", ".deb"), ("tar_gz_mb", "tar.gz"))
        if key in row
    )
    verdict = "met" if row["met"] else "NOT met"
    print(
        f"bundle  dist/metona-tray unpacked {row['unpacked_mb']:10.1f} MB in {row['files']} files"
        f" (target <= {TARGET_MB:.0f} MB: {verdict}){extra}"
    )
    record(row)
    return row


if __name__ == "__main__":
    raise SystemExit(0 if bench_bundle() is not None else 1)
