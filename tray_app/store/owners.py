"""Which process is still alive to finish what it wrote, and one lock for start-up repairs.

Every process that writes the chat history holds an exclusive OS lock on its own file
``<data>/owners/<pid>-<random>.lock`` for as long as it runs, and stamps the answers it starts
with that name (``messages.owner``). The OS drops the lock when the process ends in any way,
SIGKILL included, so "can I take the lock?" tells a dead owner from a live one even after its
pid has been reused. The repair at start only touches rows whose owner is gone: the desktop
app's answer still streaming is left alone when ``metona-tray sessions`` starts.

Repairs themselves (and killing left-over commands) run under ``<data>/repair.lock``, so two
processes starting together do not repair the same rows twice.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)

OWNERS_DIR = "owners"
REPAIR_LOCK = "repair.lock"


def _try_lock(handle: IO[bytes]) -> bool:
    """Take an exclusive lock without waiting; False if another process holds it."""
    if sys.platform == "win32":
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class ProcessMark:
    """This process's lock file; its ``token`` goes into the rows it starts."""

    def __init__(self, folder: Path, token: str, handle: IO[bytes]) -> None:
        self.folder = folder
        self.token = token
        self._handle: IO[bytes] | None = handle

    @classmethod
    def acquire(cls, data_dir: Path) -> ProcessMark | None:
        """Create and lock this process's file; None where the folder cannot be written."""
        folder = data_dir / OWNERS_DIR
        token = f"{os.getpid()}-{secrets.token_hex(6)}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handle = open(folder / f"{token}.lock", "wb")  # noqa: SIM115 (held until release)
        except OSError as exc:
            log.info("no owner mark for this process (%s): its answers count as unowned", exc)
            return None
        if not _try_lock(handle):  # a fresh random name: cannot happen unless locks are broken
            handle.close()
            return None
        return cls(folder, token, handle)

    def release(self) -> None:
        if self._handle is None:
            return
        with contextlib.suppress(OSError):
            (self.folder / f"{self.token}.lock").unlink()
        self._handle.close()
        self._handle = None


class OwnerCheck:
    """Answers "is the owner ``token`` still running?", remembering each answer."""

    def __init__(self, data_dir: Path, *, mine: str | None = None) -> None:
        self.folder = data_dir / OWNERS_DIR
        self.mine = mine
        self._known: dict[str, bool] = {}

    def alive(self, token: str | None) -> bool:
        if not token:
            return False  # written before owners were recorded, or by a process without a mark
        if token == self.mine:
            return True
        if token not in self._known:
            self._known[token] = self._probe(token)
        return self._known[token]

    def _probe(self, token: str) -> bool:
        if "/" in token or "\\" in token or token.startswith("."):
            return False
        path = self.folder / f"{token}.lock"
        try:
            handle = open(path, "rb+")  # noqa: SIM115 (closed below)
        except FileNotFoundError:
            return False
        except OSError:
            return True  # cannot tell: sparing a live answer beats marking it stopped
        with handle:
            if not _try_lock(handle):
                return True
        with contextlib.suppress(OSError):
            path.unlink()  # its process is gone; we hold the repair lock
        return False


def sweep_dead_marks(data_dir: Path) -> int:
    """Remove the mark files of processes that are gone (call it under the repair lock)."""
    folder = data_dir / OWNERS_DIR
    try:
        names = [p.name for p in folder.iterdir() if p.suffix == ".lock"]
    except OSError:
        return 0
    check = OwnerCheck(data_dir)
    return sum(1 for name in names if not check.alive(name.removesuffix(".lock")))


@contextlib.contextmanager
def repair_lock(data_dir: Path, *, timeout: float = 10.0) -> Iterator[bool]:
    """Hold ``repair.lock`` while repairing; yields False (repair skipped) if it cannot be had."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        handle = open(data_dir / REPAIR_LOCK, "ab")  # noqa: SIM115 (closed below)
    except OSError as exc:
        log.info("no repair lock (%s): the data folder cannot be written", exc)
        yield False
        return
    with handle:
        deadline = time.monotonic() + timeout
        while not _try_lock(handle):
            if time.monotonic() > deadline:
                log.warning(
                    "another process held %s for %.0f s; repair skipped", REPAIR_LOCK, timeout
                )
                yield False
                return
            time.sleep(0.05)  # another process is repairing; it takes well under a second
        yield True
