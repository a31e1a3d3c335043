"""A folder inside the allowed root that another thread keeps swapping for a symbolic link to
an outside folder holding the same names, so a tool that re-reads a checked path string would
sooner or later use the outside entry."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

OUTSIDE_MARK = "OUTSIDE-9d41-MUST-NOT-APPEAR"
INSIDE_TEXT = "inside\n"  # the outside y.txt holds it too, so an edit that escapes would match
OUTSIDE_SIZE = 4099  # the outside file's size, which no inside file has


@dataclass
class SwapWorld:
    work: Path  # the allowed root
    sub: Path  # work/sub: a real folder, or for a moment a link to ``outside``
    outside: Path  # holds the same names as sub, with OUTSIDE_MARK in every file
    swaps: int = 0


def build(work: Path, outside: Path, *, spares: int = 0) -> SwapWorld:
    """work/sub and outside/ both hold ``x.txt``, ``deep/y.txt`` and ``spares`` files
    ``deep/s{n}.txt`` (for calls that use one up each); only the outside ones carry the mark
    (and the outside ``x.txt`` has OUTSIDE_SIZE bytes)."""
    sub = work / "sub"
    for base, text in ((sub, INSIDE_TEXT), (outside, None)):
        (base / "deep").mkdir(parents=True, exist_ok=True)
        body = text if text is not None else (OUTSIDE_MARK + "\n").ljust(OUTSIDE_SIZE - 1) + "\n"
        (base / "x.txt").write_text(body)
        (base / "deep" / "y.txt").write_text(text or f"{OUTSIDE_MARK}\n{INSIDE_TEXT}")
        (base / (OUTSIDE_MARK if text is None else "inside-name")).write_text("n\n")
        for n in range(spares):
            (base / "deep" / f"s{n}.txt").write_text(text or OUTSIDE_MARK)
    (work / "lnk").symlink_to(outside, target_is_directory=True)
    return SwapWorld(work=work, sub=sub, outside=outside)


_LIBC = ctypes.CDLL(None, use_errno=True)
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a: Path, b: Path) -> None:
    """Swap two names atomically (Linux ``renameat2(RENAME_EXCHANGE)``): ``a`` never
    disappears, so a tool cannot make a new folder in its place meanwhile."""
    done = _LIBC.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if done != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number), str(a))


@contextmanager
def swapping(world: SwapWorld) -> Iterator[SwapWorld]:
    """Swap ``sub`` with the link and back in a tight loop until the block ends; the block starts
    once the first swap happened, and ends with ``sub`` a real folder again."""
    stop = threading.Event()
    started = threading.Event()
    failures: list[BaseException] = []
    link = world.work / "lnk"

    def run() -> None:
        try:
            while not stop.is_set():
                exchange(world.sub, link)  # sub is now the link to outside, lnk the folder
                exchange(world.sub, link)
                world.swaps += 1
                started.set()
        except BaseException as exc:  # reported by the test, never swallowed
            failures.append(exc)
            started.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # interleave the two threads as finely as the GIL lets them
    thread = threading.Thread(target=run, name="swapper", daemon=True)
    thread.start()
    try:
        assert started.wait(30), "the swapper never ran"
        yield world
    finally:
        stop.set()
        thread.join(30)
        sys.setswitchinterval(interval)
    assert not thread.is_alive(), "the swapper did not stop"
    assert not failures, failures
    assert world.sub.is_dir() and not world.sub.is_symlink()
