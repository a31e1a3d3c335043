"""Undo journal, reading side: capture a path's previous state and fingerprint its new one.

Capturing never follows symlinks: a link is recorded as a link, a folder as a pre-order list of
its entries (folders, files with mode, times and SHA-256, links, FIFOs) with the file contents
copied beside it. ``restore.py`` is the writing side. A single file or link is captured through
its opened folder (``fs.opened``), so a folder swapped for a link meanwhile cannot put an outside
file's content into the journal (and from there, by Undo, into the allowed folders); a folder's
tree is still walked by path.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tray_app.tools.fs.opened import Opened, opened

State = dict[str, Any]  # JSON-able description of a path's state
CHUNK = 1024 * 1024
_DIR_FD = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_BINARY = getattr(os, "O_BINARY", 0)


class TooLarge(Exception):
    """The snapshot would not fit in the journal's budget."""


# -- capture ----------------------------------------------------------------------------------


def measure(path: Path, *, deep: bool, max_items: int) -> tuple[int, int]:
    """Bytes and number of items a snapshot of ``path`` would hold (stops past ``max_items``)."""
    st = os.lstat(path)
    if not (deep and stat.S_ISDIR(st.st_mode)):
        return (st.st_size if stat.S_ISREG(st.st_mode) else 0), 1
    total, count = 0, 1
    for _rel, entry_st, _target in _walk(path):
        count += 1
        if stat.S_ISREG(entry_st.st_mode):
            total += entry_st.st_size
        if count > max_items:
            break
    return total, count


def capture(path: Path, blob_dir: Path, *, deep: bool, budget: int) -> tuple[State, int]:
    """Copy the state of ``path`` under ``blob_dir``; return the state and the bytes stored."""
    try:
        with opened(path) as here:  # a file or link: taken through its opened folder
            st = here.lstat()
            if stat.S_ISLNK(st.st_mode):
                return {"kind": "symlink", "target": os.readlink(here.name, dir_fd=here.dir_fd)}, 0
            if stat.S_ISREG(st.st_mode):
                blob_dir.mkdir(parents=True, exist_ok=True)
                meta, size = _copy_in(here, blob_dir / "0", budget)
                return {"kind": "file", **meta, "blob": "0"}, size
    except FileNotFoundError:
        return {"kind": "absent", "missing": [str(p) for p in _missing_chain(path)]}, 0
    if stat.S_ISDIR(st.st_mode) and not deep:
        return {"kind": "dir", "shallow": True}, 0
    if not stat.S_ISDIR(st.st_mode):
        return {"kind": "other"}, 0
    blob_dir.mkdir(parents=True, exist_ok=True)
    items: list[State] = []
    stored = 0
    for rel, entry_st, target in _walk(path):
        item: State = {"rel": rel, "mode": stat.S_IMODE(entry_st.st_mode)}
        if stat.S_ISDIR(entry_st.st_mode):
            item.update(kind="dir", mtime_ns=entry_st.st_mtime_ns)
        elif stat.S_ISLNK(entry_st.st_mode):
            item.update(kind="symlink", target=target)
        elif stat.S_ISREG(entry_st.st_mode):
            blob = str(len(items))
            item_path = path.joinpath(*rel)
            meta, size = _copy_in(
                Opened(item_path, None, str(item_path)), blob_dir / blob, budget - stored
            )
            stored += size
            item.update(kind="file", blob=blob, **meta)
        elif stat.S_ISFIFO(entry_st.st_mode):
            item.update(kind="fifo")
        else:
            continue  # sockets and devices cannot be brought back meaningfully
        items.append(item)
    manifest = blob_dir / "manifest.json"
    manifest.write_text(json.dumps(items), encoding="utf-8")
    state = {"kind": "tree", "mode": stat.S_IMODE(st.st_mode), "mtime_ns": st.st_mtime_ns}
    return {**state, "manifest": "manifest.json", "items": len(items)}, stored


def _missing_chain(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet, deepest first."""
    chain = []
    current = path
    while not os.path.lexists(current) and current.parent != current:
        chain.append(current)
        current = current.parent
    return chain


def _walk(root: Path) -> Iterator[tuple[list[str], os.stat_result, str | None]]:
    """Depth-first, pre-order (a folder right before its contents), never following links."""

    def listing(folder: Path) -> Iterator[os.DirEntry[str]]:
        with os.scandir(folder) as it:
            return iter(sorted(it, key=lambda e: e.name))

    stack: list[tuple[list[str], Iterator[os.DirEntry[str]]]] = [([], listing(root))]
    while stack:
        rel, entries = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        entry_st = entry.stat(follow_symlinks=False)
        target = os.readlink(entry.path) if stat.S_ISLNK(entry_st.st_mode) else None
        yield [*rel, entry.name], entry_st, target
        if stat.S_ISDIR(entry_st.st_mode):
            stack.append(([*rel, entry.name], listing(Path(entry.path))))


def _copy_in(entry: Opened, dest: Path, budget: int) -> tuple[State, int]:
    source = entry.path
    fd = entry.open(os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_BINARY)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(source))
        digest = hashlib.sha256()
        size = 0
        with open(dest, "xb") as out:
            while chunk := os.read(fd, CHUNK):
                size += len(chunk)
                if size > budget:
                    raise TooLarge(f"{source} grew past the journal's budget while copied")
                digest.update(chunk)
                out.write(chunk)
    finally:
        os.close(fd)
    meta = {"mode": stat.S_IMODE(st.st_mode), "size": size, "sha256": digest.hexdigest()}
    return {**meta, "mtime_ns": st.st_mtime_ns, "atime_ns": st.st_atime_ns}, size


# -- fingerprints -----------------------------------------------------------------------------


def fingerprint(path: Path) -> State:
    """The state after a change, to tell later whether someone else changed it since."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return {"kind": "absent"}
    if stat.S_ISLNK(st.st_mode):
        return {"kind": "symlink", "target": os.readlink(path)}
    if stat.S_ISDIR(st.st_mode):
        names = sorted(os.listdir(path))
        joined = "\0".join(names).encode("utf-8", "surrogateescape")
        return {"kind": "dir", "entries": len(names), "names": hashlib.sha256(joined).hexdigest()}
    if not stat.S_ISREG(st.st_mode):
        return {"kind": "other"}
    fd = os.open(path, os.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_BINARY)
    try:
        digest = hashlib.sha256()
        while chunk := os.read(fd, CHUNK):
            digest.update(chunk)
    finally:
        os.close(fd)
    return {
        "kind": "file",
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "sha256": digest.hexdigest(),
    }


def same_state(current: State, expected: State) -> bool:
    """Equal content counts as unchanged: a ``touch`` alone does not block an undo."""
    keys = {"file": ("size", "sha256"), "dir": ("entries", "names"), "symlink": ("target",)}
    if current.get("kind") != expected.get("kind"):
        return False
    return all(current.get(k) == expected.get(k) for k in keys.get(str(current["kind"]), ()))
