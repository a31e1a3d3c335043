"""Undo journal, writing side: put a captured state back, or remove what a call created.

On POSIX the parent folder is opened one component at a time with ``O_NOFOLLOW`` and every change
is made relative to that descriptor, so a symlink that appeared anywhere on the recorded path
since is refused rather than followed. New content is written to a temporary name in the same
folder, checked against the recorded SHA-256, and renamed (or hard-linked, to never clobber) into
place, so an undo happens whole or not at all. Windows has no ``dir_fd``: there the parent's real
path is compared before acting instead, which is weaker, and untested here.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from tray_app.base.atomic import fsync_folder, write_all
from tray_app.tool_errors import CodedError
from tray_app.tools.journal.snapshot import CHUNK, O_BINARY, O_DIRECTORY, O_NOFOLLOW, State

_DIR_FD = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
_WALK = getattr(os, "O_PATH", os.O_RDONLY) | O_DIRECTORY  # O_PATH: no read permission needed


DAMAGED = "the journal's saved copy is damaged; not undone"


class UndoRefused(CodedError):
    """Undo cannot (or must not) proceed; the sentence is for the log, the ``code`` and
    ``params`` (``tool_errors``) let the page and the terminal say it in the user's language."""


@contextlib.contextmanager
def parent_of(path: Path) -> Iterator[tuple[int | None, str]]:
    """(dir_fd, name) for acting on ``path`` without following any symlink on the way."""
    if not _DIR_FD:
        real_parent = os.path.realpath(path.parent)
        if os.path.normcase(real_parent) != os.path.normcase(str(path.parent)):
            raise UndoRefused(
                f"{path.parent} is now reached through a link; not undone",
                code="undo_link_on_the_way",
                path=path,
            )
        yield None, str(path)
        return
    fd = os.open(path.anchor or "/", _WALK)
    try:
        for part in path.parent.parts[1:]:
            try:
                next_fd = os.open(part, _WALK | O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UndoRefused(
                        f"a link or file replaced a folder on the way to {path}; not undone",
                        code="undo_link_on_the_way",
                        path=path,
                    ) from exc
                if exc.errno == errno.ENOENT:
                    raise UndoRefused(
                        f"the folder {path.parent} no longer exists; not undone",
                        code="undo_folder_gone",
                        path=path.parent,
                    ) from exc
                raise
            os.close(fd)
            fd = next_fd
        yield fd, path.name
    finally:
        os.close(fd)


def _temp_name() -> str:
    return f".metona-undo-{secrets.token_hex(6)}"


def _write_blob(dir_fd: int | None, name: str, item: State, blob: Path) -> None:
    """Create ``name`` (exclusive) with the blob's content; verify it; set mode and times."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_BINARY
    fd = os.open(name, flags, 0o600, dir_fd=dir_fd)
    try:
        digest = hashlib.sha256()
        with open(blob, "rb") as src:
            while chunk := src.read(CHUNK):
                digest.update(chunk)
                write_all(fd, chunk)
        if digest.hexdigest() != item["sha256"]:
            raise UndoRefused(DAMAGED, code="undo_copy_damaged")
        _set_meta(fd, item)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        raise
    os.close(fd)


def _set_meta(fd: int, item: State) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(fd, int(item["mode"]) & 0o7777)
    if os.utime in os.supports_fd and "mtime_ns" in item:
        mtime = int(item["mtime_ns"])
        os.utime(fd, ns=(int(item.get("atime_ns") or mtime), mtime))


def _place(dir_fd: int | None, temp: str, name: str, *, replace: bool) -> None:
    """Move ``temp`` to ``name``; without ``replace`` an existing ``name`` is never clobbered."""
    taken = f"changed since: something now exists at {name}; not undone"
    if dir_fd is None:  # ``name`` is then a full path
        if not replace and os.path.lexists(name):
            raise UndoRefused(taken, code="undo_changed_exists", path=name)
        os.replace(temp, name)
        return
    if replace:
        os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return
    if not stat.S_ISDIR(os.stat(temp, dir_fd=dir_fd, follow_symlinks=False).st_mode):
        try:  # link() fails instead of replacing: no window for a race
            os.link(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError as exc:
            raise UndoRefused(taken, code="undo_changed_exists", path=name) from exc
        except OSError:
            pass  # no hard links on this file system: check, then rename
        else:
            os.unlink(temp, dir_fd=dir_fd)
            return
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    else:
        raise UndoRefused(taken, code="undo_changed_exists", path=name)


def restore_file(path: Path, state: State, blob_dir: Path, *, replace: bool) -> None:
    with parent_of(path) as (dir_fd, name):
        temp = _temp_name() if dir_fd is not None else str(path.with_name(_temp_name()))
        _write_blob(dir_fd, temp, state, blob_dir / str(state["blob"]))
        try:
            _place(dir_fd, temp, name, replace=replace)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
        _durable(dir_fd, path)


def _durable(dir_fd: int | None, path: Path) -> None:
    """The rename into place survives a power cut (``atomic.fsync_folder``)."""
    if dir_fd is not None:
        fsync_folder(dir_fd=dir_fd)
    else:
        fsync_folder(path.parent)


def restore_symlink(path: Path, target: str) -> None:
    with parent_of(path) as (dir_fd, name):
        os.symlink(target, name, dir_fd=dir_fd)


def restore_tree(path: Path, state: State, blob_dir: Path) -> None:
    """Rebuild the tree under a temporary name, then rename it into place in one step."""
    items: list[State] = json.loads((blob_dir / str(state["manifest"])).read_text("utf-8"))
    with parent_of(path) as (dir_fd, name):
        temp = _temp_name() if dir_fd is not None else str(path.with_name(_temp_name()))
        os.mkdir(temp, 0o700, dir_fd=dir_fd)
        try:
            for item in items:
                rel = [str(part) for part in item["rel"]]
                if not rel or any(p in ("", ".", "..") or "/" in p or "\\" in p for p in rel):
                    raise UndoRefused(DAMAGED, code="undo_copy_damaged")
            if dir_fd is None:
                _fill_tree_by_path(Path(temp), items, blob_dir)
            else:
                _fill_tree(dir_fd, temp, items, blob_dir)
                root_fd = os.open(temp, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW, dir_fd=dir_fd)
                try:
                    _set_meta(root_fd, state)
                finally:
                    os.close(root_fd)
            _place(dir_fd, temp, name, replace=False)
        except BaseException:
            remove_tree(dir_fd, temp)
            raise
        _durable(dir_fd, path)


def _fill_tree_by_path(root: Path, items: list[State], blob_dir: Path) -> None:
    """Windows: no ``dir_fd``; the tree is ours until it is renamed into place."""
    for item in items:
        target = root.joinpath(*[str(part) for part in item["rel"]])
        if item["kind"] == "dir":
            target.mkdir()
        elif item["kind"] == "file":
            _write_blob(None, str(target), item, blob_dir / str(item["blob"]))
        elif item["kind"] == "symlink":
            os.symlink(str(item["target"]), target)


def _fill_tree(dir_fd: int, temp: str, items: list[State], blob_dir: Path) -> None:
    base = os.open(temp, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW, dir_fd=dir_fd)
    stack: list[tuple[list[str], int]] = [([], base)]
    dirs: list[State] = []
    try:
        for item in items:
            rel = [str(part) for part in item["rel"]]
            while len(stack) > 1 and stack[-1][0] != rel[:-1]:
                os.close(stack.pop()[1])
            if stack[-1][0] != rel[:-1]:
                raise UndoRefused(DAMAGED, code="undo_copy_damaged")
            parent_fd, leaf = stack[-1][1], rel[-1]
            kind = item["kind"]
            if kind == "dir":
                os.mkdir(leaf, 0o700, dir_fd=parent_fd)
                sub = os.open(leaf, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW, dir_fd=parent_fd)
                stack.append((rel, sub))
                dirs.append(item)
            elif kind == "file":
                _write_blob(parent_fd, leaf, item, blob_dir / str(item["blob"]))
            elif kind == "symlink":
                os.symlink(str(item["target"]), leaf, dir_fd=parent_fd)
            elif kind == "fifo":
                os.mkfifo(leaf, int(item["mode"]) & 0o777, dir_fd=parent_fd)
    finally:
        for _rel, fd in stack:
            os.close(fd)
    for item in reversed(dirs):  # deepest first, so read-only folders are sealed last
        fd = base_fd = os.open(temp, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW, dir_fd=dir_fd)
        try:
            for part in item["rel"]:
                fd = os.open(str(part), os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW, dir_fd=fd)
                os.close(base_fd)
                base_fd = fd
            _set_meta(fd, item)
        finally:
            os.close(base_fd)


def remove_tree(dir_fd: int | None, name: str) -> None:
    """Remove a tree we created ourselves (a failed restore), without following links."""
    if dir_fd is None:
        shutil.rmtree(name, ignore_errors=True)
        return
    with contextlib.suppress(OSError):
        _remove_tree_at(dir_fd, name)


def _remove_tree_at(dir_fd: int, name: str) -> None:
    fd = os.open(name, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW, dir_fd=dir_fd)
    try:
        os.fchmod(fd, 0o700)
        for entry in list(os.scandir(fd)):
            if entry.is_dir(follow_symlinks=False):
                _remove_tree_at(fd, entry.name)
            else:
                os.unlink(entry.name, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)


def remove_file(path: Path) -> None:
    with parent_of(path) as (dir_fd, name):
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            raise UndoRefused(
                f"changed since: {path} is now a folder; not undone",
                code="undo_changed_folder",
                path=path,
            )
        os.unlink(name, dir_fd=dir_fd)


def remove_created_dirs(path: Path, created: list[str]) -> None:
    """Remove the folders a call created, deepest first, while they are empty."""
    for index, raw in enumerate(created):
        try:
            with parent_of(Path(raw)) as (dir_fd, name):
                os.rmdir(name, dir_fd=dir_fd)
        except FileNotFoundError:
            continue
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST) and index > 0:
                return  # a parent we created now holds other things: leave it
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise UndoRefused(
                    f"changed since: {path} is no longer empty; not undone",
                    code="undo_changed_not_empty",
                    path=path,
                ) from exc
            raise
        except UndoRefused:
            if index == 0:
                raise
            return


def move_back(path: Path, state: State, blob_dir: Path) -> None:
    """Undo of move_file: rename ``path`` back to where it came from (never over something
    there now), then put back the file the move replaced, if it replaced one, or remove the
    folders the move created for it while they are empty."""
    source = Path(str(state["moved_from"]))
    with parent_of(source) as (src_fd, src_name), parent_of(path) as (dir_fd, name):
        if src_fd is None or dir_fd is None:  # Windows: paths, checked then renamed
            if os.path.lexists(source):
                raise UndoRefused(
                    f"changed since: something now exists at {source}; not undone",
                    code="undo_changed_exists",
                    path=source,
                )
            os.rename(path, source)
        else:
            try:
                os.stat(src_name, dir_fd=src_fd, follow_symlinks=False)
            except FileNotFoundError:
                os.rename(name, src_name, src_dir_fd=dir_fd, dst_dir_fd=src_fd)
            else:
                raise UndoRefused(
                    f"changed since: something now exists at {source}; not undone",
                    code="undo_changed_exists",
                    path=source,
                )
    if state.get("kind") == "file":
        restore_file(path, state, blob_dir, replace=False)
    elif state.get("kind") == "absent":
        created = [str(p) for p in state.get("missing", []) if str(p) != str(path)]
        with contextlib.suppress(UndoRefused, OSError):  # a folder now in use is left alone
            remove_created_dirs(path.parent, created)
