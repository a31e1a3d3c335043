"""What an approval is bound to: the identity and content of the target the user was shown.

A preview records ``binding`` (size, mtime_ns, inode, sha256 of the bytes the diff was made
from); the agent loop makes the preview again just before the call runs and compares the two.
A file that changed in between is not written: the user is asked again with the new
diff. Hashing is bounded (``HASH_MAX_BYTES``): past it, a file is bound by size, times and inode.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tray_app.tools.result import ToolResult, failure

HASH_MAX_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024


def identity(info: os.stat_result) -> dict[str, Any]:
    """The stat facts that change when a file is replaced or written."""
    return {
        "size": info.st_size,
        "mtime_ns": info.st_mtime_ns,
        "inode": info.st_ino,
        "device": info.st_dev,
        "mode": stat.S_IFMT(info.st_mode),
    }


def file_binding(path: Path) -> dict[str, Any]:
    """``{"exists": False}``, or the entry's identity plus the sha256 of a regular file's bytes.

    The entry is never followed (a link is bound as the link)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return {"exists": False}
    out: dict[str, Any] = {"exists": True, **identity(info), "sha256": None}
    if stat.S_ISREG(info.st_mode) and info.st_size <= HASH_MAX_BYTES:
        out["sha256"] = _sha256(path)
    elif stat.S_ISLNK(info.st_mode):
        out["sha256"] = hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()
    return out


def _sha256(path: Path) -> str | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    digest = hashlib.sha256()
    read = 0
    with os.fdopen(fd, "rb") as handle:
        while read <= HASH_MAX_BYTES:
            chunk = handle.read(_CHUNK)
            if not chunk:
                return digest.hexdigest()
            digest.update(chunk)
            read += len(chunk)
    return None  # it grew past the bound while being read: identity alone binds it


def bytes_binding(info: os.stat_result, data: bytes) -> dict[str, Any]:
    """The binding of bytes already read from an open file (``info`` from its fstat)."""
    return {"exists": True, **identity(info), "sha256": hashlib.sha256(data).hexdigest()}


def changed_since_approval(bound: Mapping[str, Any] | None, now: Mapping[str, Any]) -> bool:
    """True when the call was approved for another target than the one there now."""
    return bound is not None and dict(bound) != dict(now)


def changed_text(path: Path | str) -> str:
    return (
        f"{path} changed after the user approved this call; nothing was changed. Call again "
        "to show the user the new diff"
    )


def changed_failure(path: Path | str) -> ToolResult:
    """The answer of a tool whose target is not the one the user approved (asked again)."""
    return failure(
        changed_text(path),
        code="changed_after_approval",
        params={"path": path},
        changed_since_approval=True,
    )


def tree_binding(
    info: os.stat_result, entries: Iterable[tuple[str, os.stat_result]]
) -> dict[str, Any]:
    """A folder bound by the identity of every entry below it (what the delete tree showed)."""
    digest = hashlib.sha256()
    for rel, entry in sorted(entries, key=lambda item: item[0]):
        facts = identity(entry)
        line = f"{rel}\0{facts['mode']}\0{facts['size']}\0{facts['mtime_ns']}\0{facts['inode']}\n"
        digest.update(line.encode("utf-8", "surrogateescape"))
    return {"exists": True, **identity(info), "sha256": digest.hexdigest()}
