"""Opened paths: a checked path reached one folder at a time, never through a link.

``SandboxPolicy.resolve`` checks a real path (no component is a link). A path string used
later would be looked up again, and a folder swapped for a symbolic link in between would send
the operation elsewhere. So on POSIX the tools do not use the string: ``opened(path)`` walks
from the file system's root, opening each folder with ``O_NOFOLLOW | O_DIRECTORY`` relative to
the one before (``dir_fd=``), closing each as it goes, and hands back the last folder's
descriptor and the final name. Every later step (``stat``, ``open``, ``access``, listing) goes
through that descriptor, so a swap anywhere along the path makes the walk fail (``ENOTDIR``,
``ELOOP``) instead of leading outside. At most two descriptors are open per walk.

On Linux each step is opened with ``O_PATH`` (no read permission needed on the folders above);
elsewhere with ``O_RDONLY``. Windows has no ``dir_fd``: there ``Opened`` carries the whole path
and every call behaves as before (see docs/safety.md for what that leaves open there).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: True where the tools work through folder descriptors (every POSIX system Python supports).
BY_DESCRIPTOR = os.name != "nt" and os.open in os.supports_dir_fd

_NO_FOLLOW_DIR = (
    getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
#: Flags for a folder that is only passed through (``O_PATH`` needs no read permission).
STEP_FLAGS = (getattr(os, "O_PATH", 0) or os.O_RDONLY) | _NO_FOLLOW_DIR
#: Flags for a folder whose entries are read (``os.scandir`` needs a readable descriptor).
LIST_FLAGS = os.O_RDONLY | _NO_FOLLOW_DIR


@dataclass(frozen=True)
class Opened:
    """One entry reached through its opened folder: ``name`` relative to ``dir_fd``.

    Without descriptors (Windows) ``dir_fd`` is None and ``name`` is the whole path, so the
    same calls work there unchanged. ``path`` is the checked path, for messages only.
    """

    path: Path
    dir_fd: int | None
    name: str

    def lstat(self) -> os.stat_result:
        """The entry itself (a link is described as a link)."""
        try:
            return os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)
        except OSError as exc:
            raise named(exc, self.path) from exc

    def open(self, flags: int, mode: int = 0o777) -> int:
        """``os.open`` of the entry; pass ``O_NOFOLLOW`` so a link put here is not followed."""
        try:
            return os.open(self.name, flags, mode, dir_fd=self.dir_fd)
        except OSError as exc:
            raise named(exc, self.path) from exc

    def access(self, mode: int) -> bool:
        """``os.access`` of the entry, not following a final link."""
        if self.dir_fd is None:
            return os.access(self.name, mode, follow_symlinks=False)
        return os.access(self.name, mode, dir_fd=self.dir_fd, follow_symlinks=False)

    def open_folder(self) -> int:
        """A readable descriptor on the entry when it is a folder (``os.scandir`` takes it)."""
        return self.open(LIST_FLAGS)

    def count_entries(self) -> int:
        """How many entries the folder holds."""
        if self.dir_fd is None:
            with os.scandir(self.name) as it:
                return sum(1 for _ in it)
        fd = self.open_folder()
        try:
            with os.scandir(fd) as it:
                return sum(1 for _ in it)
        finally:
            os.close(fd)


def named(exc: OSError, path: Path) -> OSError:
    """``exc`` naming the whole ``path`` (the OS names only the component it was given)."""
    return OSError(exc.errno, exc.strerror, str(path))


def open_chain(folder: Path, *, flags: int = STEP_FLAGS) -> int:
    """A descriptor on ``folder`` (absolute, real), walked from the root without following
    any link; ``OSError`` (``ENOTDIR``, ``ELOOP``, ``ENOENT``) when a part is not a folder."""
    anchor, *parts = folder.parts
    fd = os.open(anchor, STEP_FLAGS if parts else flags)
    index = 0
    try:
        for index, part in enumerate(parts):
            step = flags if index == len(parts) - 1 else STEP_FLAGS
            following = os.open(part, step, dir_fd=fd)
            os.close(fd)
            fd = following
    except OSError as exc:
        os.close(fd)
        raise named(exc, Path(anchor, *parts[: index + 1])) from exc
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_below(fd: int, names: Sequence[str], *, flags: int = LIST_FLAGS) -> int:
    """A new descriptor on the folder ``names`` below the open folder ``fd`` (which stays
    open), each step without following a link; by default readable, for ``os.scandir``."""
    if not names:
        return os.open(".", flags, dir_fd=fd)
    current = fd
    try:
        for index, name in enumerate(names):
            step = flags if index == len(names) - 1 else STEP_FLAGS
            following = os.open(name, step, dir_fd=current)
            if current != fd:
                os.close(current)
            current = following
    except BaseException:
        if current != fd:
            os.close(current)
        raise
    return current


@contextmanager
def opened(path: Path) -> Iterator[Opened]:
    """``path`` (absolute, checked) as an ``Opened`` whose folder stays open for the block."""
    if not BY_DESCRIPTOR:
        yield Opened(path, None, str(path))
        return
    folder, name = path.parent, path.name
    if not name:  # the file system's root itself
        folder, name = path, "."
    try:
        fd = open_chain(folder)
    except OSError as exc:
        if exc.errno == errno.ENOENT:  # a missing folder on the way: the path asked for is
            raise named(exc, path) from exc  # what is not found, as a path-string open says
        raise
    try:
        yield Opened(path, fd, name)
    finally:
        os.close(fd)
