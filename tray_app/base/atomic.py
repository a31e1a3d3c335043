"""Replace a file whole or not at all: the one way the app writes a file in place.

``atomic_write`` writes a temporary file next to the target (created with ``O_EXCL`` and
``O_NOFOLLOW``, so a planted link cannot receive the data), fsyncs it, renames it over the
target, and fsyncs the folder so the rename itself survives a power cut. A crash at any point
leaves the old file or the new one, never a mix; at worst a temporary file is left beside it
(named with ``prefix``/``suffix``, so a sweep can find it). Used by the settings, the file tools,
the undo journal's restores (``write_all``/``fsync_folder``), autostart entries and exports.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
from pathlib import Path

log = logging.getLogger(__name__)

WRITE_CHUNK = 1024 * 1024
_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def atomic_write(
    target: Path,
    data: bytes,
    *,
    like: os.stat_result | None = None,
    private: bool = False,
    prefix: str | None = None,
    suffix: str = ".tmp",
    dir_fd: int | None = None,
) -> None:
    """Replace ``target`` with ``data``, durably.

    With ``dir_fd`` (an open folder, which may be an ``O_PATH`` descriptor) ``target`` is a
    name in that folder and every step goes through the descriptor, never a path string.

    The new file's mode: the replaced file's mode and owner with ``like`` (its ``stat``),
    0600 with ``private``, else 0666 through the umask (``tempfile.mkstemp`` would force 0600
    on every file, hence the explicit open). Raises ``OSError``; the temporary file is then
    removed.
    """
    target = Path(target)
    name = f"{prefix if prefix is not None else '.' + target.name + '.'}{secrets.token_hex(8)}"
    temp = target.parent / f"{name}{suffix}"
    fd = os.open(temp, _FLAGS, 0o600 if (private or like is not None) else 0o666, dir_fd=dir_fd)
    try:
        try:
            write_all(fd, data)
            if like is not None and not private:
                _keep_owner_and_mode(fd, temp, like)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=dir_fd)
        raise
    fsync_folder(target.parent if dir_fd is None else None, dir_fd=dir_fd)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written, a chunk at a time."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:WRITE_CHUNK])
        view = view[written:]


def fsync_folder(folder: Path | None = None, *, dir_fd: int | None = None) -> None:
    """Make a rename in ``folder`` (or the open folder ``dir_fd``, which may be an ``O_PATH``
    descriptor) durable. Best effort: not every system can fsync a folder (Windows cannot open
    one), and the data itself is already safe."""
    if os.name != "posix" or (folder is None and dir_fd is None):
        return
    where = "." if dir_fd is not None else str(folder)
    try:
        fd = os.open(where, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0), dir_fd=dir_fd)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _keep_owner_and_mode(fd: int, temp: Path, old: os.stat_result) -> None:
    mode = stat.S_IMODE(old.st_mode)
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # Windows: only the read-only bit exists
        os.chmod(temp, mode)
    if hasattr(os, "fchown") and hasattr(os, "geteuid") and os.geteuid() == 0:
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            log.debug("could not keep the owner of %s", temp)
