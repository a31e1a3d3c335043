"""A folder inside the allowed root that another thread keeps swapping for a symbolic link to
an outside folder holding the same names, so a tool that re-reads a checked path string would
sooner or later use the outside entry."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

OUTSIDE_MARK = "OUTSIDE-9d41-MUST-NOT-APPEAR"
INSIDE_TEXT = "inside\n"
OUTSIDE_SIZE = 4099  # the outside file's size, which no inside file has


@dataclass
class SwapWorld:
    work: Path  # the allowed root
    sub: Path  # work/sub: a real folder, or for a moment a link to ``outside``
    outside: Path  # holds the same names as sub, with OUTSIDE_MARK in every file
    swaps: int = 0


def build(work: Path, outside: Path) -> SwapWorld:
    """work/sub and outside/ both hold ``x.txt`` and ``deep/y.txt``; only the outside ones carry
    the mark (and the outside ``x.txt`` has OUTSIDE_SIZE bytes)."""
    sub = work / "sub"
    for base, text in ((sub, INSIDE_TEXT), (outside, None)):
        (base / "deep").mkdir(parents=True, exist_ok=True)
        body = text if text is not None else (OUTSIDE_MARK + "\n").ljust(OUTSIDE_SIZE - 1) + "\n"
        (base / "x.txt").write_text(body)
        (base / "deep" / "y.txt").write_text(text or OUTSIDE_MARK + "\n")
        (base / (OUTSIDE_MARK if text is None else "inside-name")).write_text("n\n")
    (work / "lnk").symlink_to(outside, target_is_directory=True)
    return SwapWorld(work=work, sub=sub, outside=outside)


@contextmanager
def swapping(world: SwapWorld) -> Iterator[SwapWorld]:
    """Swap ``sub`` for the link and back in a tight loop until the block ends; the block starts
    once the first swap happened, and ends with ``sub`` a real folder again."""
    stop = threading.Event()
    started = threading.Event()
    failures: list[BaseException] = []
    hold, link = world.work / "hold", world.work / "lnk"

    def run() -> None:
        try:
            while not stop.is_set():
                os.rename(world.sub, hold)
                os.rename(link, world.sub)  # sub is now the link to outside
                os.rename(world.sub, link)
                os.rename(hold, world.sub)
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
