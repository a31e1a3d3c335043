"""Paths as tuples of components: folding, containment, normalising without the disk.

The sandbox compares paths by component (``work_evil`` is not inside ``work``), case-folded
where the file system folds case; these helpers do that arithmetic and nothing else.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path


def fold(part: str) -> str:
    """One component as the comparisons see it: NFC, case-folded."""
    return unicodedata.normalize("NFC", part).casefold()


def path_key(path: Path, *, fold_case: bool) -> tuple[str, ...]:
    parts = path.parts
    return tuple(fold(p) for p in parts) if fold_case else parts


def within(child: tuple[str, ...], root: tuple[str, ...]) -> bool:
    return len(child) >= len(root) and child[: len(root)] == root


def split_raw(raw: str) -> list[str]:
    """The components of a path as the model wrote it (both separators on Windows)."""
    seps = "/\\" if os.name == "nt" else "/"
    return [p for p in re.split(f"[{re.escape(seps)}]", raw) if p]


def plain_abs(path: str) -> Path:
    """Absolute and normalised without touching the disk (``//x`` becomes ``/x`` on POSIX)."""
    norm = os.path.normpath(os.path.abspath(path))
    if os.name != "nt" and norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return Path(norm)


def unique(paths: Iterable[Path]) -> list[Path]:
    """``paths`` without repeats, in their first order."""
    seen: list[Path] = []
    for path in paths:
        if path not in seen:
            seen.append(path)
    return seen
