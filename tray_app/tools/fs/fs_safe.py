"""Low-level file access the tools share: open without following or blocking, bounded reads.

Limits are counted in bytes actually read (at most ``limit + 1``), never trusted from ``stat``:
a file that grows, or a ``/proc``-style file that reports size 0, cannot blow them.
"""

from __future__ import annotations

import errno
import os
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tray_app.os_reasons import ERRNO_CODES
from tray_app.tool_errors import CodedError, ToolErrorCode
from tray_app.tools.fs.opened import Opened, opened
from tray_app.tools.result import ToolResult, failure

if TYPE_CHECKING:
    from tray_app.tools.sandbox.policy import SandboxPolicy

READ_CHUNK = 64 * 1024
BINARY_SNIFF = 8 * 1024

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class NotReadable(CodedError):
    """The path exists but is not a regular file we will read; ``str()`` is for the model."""


def kind_of(mode: int) -> str:
    """A word for a file type, for messages and listings."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def open_regular(path: Path) -> tuple[int, os.stat_result]:
    """An fd on the regular file at ``path``; anything else raises ``NotReadable``.

    The file is reached through its opened folder (``fs.opened``), so a folder on the way
    swapped for a link fails instead of leading elsewhere."""
    with opened(path) as here:
        return open_regular_at(here)


def open_regular_at(here: Opened) -> tuple[int, os.stat_result]:
    """``open_regular`` for an entry already reached through its folder.

    ``lstat`` first so a FIFO or device is never even opened; then ``O_NOFOLLOW|O_NONBLOCK``
    and ``fstat`` on the fd, so a swap between the two steps is still caught.
    """
    path = here.path
    before = here.lstat()
    if not stat.S_ISREG(before.st_mode):
        raise _not_regular(path, before.st_mode)
    try:
        fd = here.open(_OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotReadable(
                f"{path} changed into a symbolic link; not read", code="became_link", path=path
            ) from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def removable(
    policy: SandboxPolicy, raw: str, *, verb: str, code: ToolErrorCode
) -> tuple[Path, os.stat_result] | ToolResult:
    """``raw`` as an entry that may be taken away (deleted, moved: the link itself, never its
    target) and its ``lstat``; or why not: it is an allowed folder, the home folder or the
    workspace, or holds one (``code``, the sentence says ``verb``), or the OS refused."""
    path = policy.resolve(raw, access="delete")
    if policy.is_allowed_root_or_ancestor(path):
        return failure(
            f"{path} is an allowed folder, the home folder or the workspace (or holds one); "
            f"it cannot be {verb}",
            code=code,
            params={"path": path},
        )
    try:
        return path, os.lstat(path)
    except OSError as exc:
        return os_failure(exc, path, what="file or folder")


def _not_regular(path: Path, mode: int) -> NotReadable:
    kind = kind_of(mode)
    if kind == "directory":
        return NotReadable(
            f"{path} is a folder, not a file; use list_directory",
            code="not_a_file_folder",
            path=path,
        )
    return NotReadable(
        f"{path} is a {kind}, not a regular file; only regular files are read",
        code="not_a_regular_file",
        path=path,
    )


def read_capped(fd: int, limit: int) -> bytes:
    """Read to EOF or until more than ``limit`` bytes arrived (then ``limit + 1`` are returned)."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = os.read(fd, min(READ_CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_regular(path: Path | Opened, limit: int) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file, at most ``limit + 1`` of them."""
    fd, info = open_regular_at(path) if isinstance(path, Opened) else open_regular(path)
    try:
        return read_capped(fd, limit), info
    finally:
        os.close(fd)


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF]


def split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only, each keeping its ending, so joining gives the text back."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def iso_time(timestamp: float) -> str:
    try:
        moment = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    except (ValueError, OverflowError, OSError):
        # tmpfs and others keep any 64-bit time (``touch -d @99999999999``); datetime ends at
        # the years 1 and 9999, and one such file must not make a whole listing fail.
        moment = (datetime.max if timestamp > 0 else datetime.min).replace(tzinfo=timezone.utc)
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%SZ")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    if size < 1024**3:
        return f"{size / 1024 / 1024:.1f} MB"
    return f"{size / 1024**3:.1f} GB"


_ERRNO_WORDS = {
    errno.ENOENT: "not found",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EISDIR: "is a folder",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ELOOP: "too many symbolic links",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ENOSPC: "no space left on the device",
    errno.EROFS: "the file system is read-only",
    errno.ENOTEMPTY: "the folder is not empty",
    errno.EEXIST: "it already exists",
    errno.EBUSY: "it is in use",
    errno.EXDEV: "it is on another device",
}


_NOT_FOUND: dict[str, ToolErrorCode] = {"file": "file_not_found", "folder": "folder_not_found"}


def os_error_code(
    exc: OSError, path: Path | str, *, what: str = "file"
) -> tuple[ToolErrorCode, dict[str, object]]:
    """The code and params of ``describe_os_error``'s sentence."""
    where = exc.filename if isinstance(exc.filename, str) and exc.filename else str(path)
    if exc.errno == errno.ENOENT:
        return _NOT_FOUND.get(what, "path_not_found"), {"path": where}
    code = ERRNO_CODES.get(exc.errno or -1)  # any other errno is os_error
    if code is None:
        return "os_error", {"path": where, "reason": exc.strerror or str(exc)}
    return code, {"path": where}


def os_failure(exc: OSError, path: Path | str, *, what: str = "file", **extra: Any) -> ToolResult:
    """The coded failure for an OS error on ``path`` (``describe_os_error``'s sentence)."""
    code, params = os_error_code(exc, path, what=what)
    return failure(describe_os_error(exc, path, what=what), code=code, params=params, **extra)


def describe_os_error(exc: OSError, path: Path | str, *, what: str = "file") -> str:
    """A sentence for the model: ``file not found: /x/y.txt``."""
    where = exc.filename if isinstance(exc.filename, str) and exc.filename else str(path)
    if exc.errno == errno.ENOENT:
        return f"{what} not found: {where}"
    words = _ERRNO_WORDS.get(exc.errno or -1) or exc.strerror or str(exc)
    return f"{words}: {where}" if where else words


def _text(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    return value


def printable(value: Any) -> Any:
    """``value`` with lone surrogates replaced, so that it can be encoded as UTF-8.

    File names that are not valid UTF-8 reach Python as surrogate escapes; left in a result they
    would break every later ``json.dumps(..., ensure_ascii=False).encode()``.
    """
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {_text(str(k)): printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    return value
