"""A bounded, breadth-first directory walk that never follows symbolic links.

Recursive listing, search and the recursive-delete check all use it. Breadth first, so when a
cap stops the walk the shallow entries, which matter most, are already in. It stops at a time
budget and on cancellation, skips folders it already visited (bind-mount loops), and reads at
most ``max_dir_entries`` names of any one folder. ``stopped`` says why it stopped early.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

from tray_app.tools.fs_safe import kind_of

DEFAULT_TIME_BUDGET = 10.0
MAX_DIR_ENTRIES = 20_000
_SLICE = 256


class Entry:
    """One entry met by the walk. ``info`` is its ``lstat`` (never followed), taken on first
    use: the walk itself stats only folders (for loop detection) and entries whose type the
    directory listing did not give; a search stats only the files it may read."""

    __slots__ = ("_info", "_item", "_path", "depth", "kind", "name", "rel")

    def __init__(
        self,
        path: Path | str,
        rel: str,
        name: str,
        depth: int,  # 1 = directly inside the root
        kind: str,  # file, directory, symlink, or a special kind (named pipe, socket, device)
        info: os.stat_result | None = None,
        item: os.DirEntry[str] | None = None,
    ) -> None:
        self._path = path
        self.rel = rel
        self.name = name
        self.depth = depth
        self.kind = kind
        self._info = info
        self._item = item

    @property
    def path(self) -> Path:
        if not isinstance(self._path, Path):
            self._path = Path(self._path)
        return self._path

    @property
    def path_str(self) -> str:
        return str(self._path)

    @property
    def info(self) -> os.stat_result:
        if self._info is None:
            if self._item is not None:
                self._info = self._item.stat(follow_symlinks=False)
            else:
                self._info = os.lstat(self._path)
        return self._info

    def __repr__(self) -> str:
        return f"Entry({self.rel!r}, {self.kind})"


class Walk:
    """Iterate the entries below ``root`` (not the root itself)."""

    def __init__(
        self,
        root: Path,
        *,
        max_depth: int,
        include_hidden: bool = False,
        skip: Callable[[Entry], bool] | None = None,
        time_budget: float | None = None,
        cancel: threading.Event | None = None,
        max_dir_entries: int = MAX_DIR_ENTRIES,
        stat_entries: bool = True,
    ) -> None:
        self.root = root
        self.max_depth = max_depth
        self.include_hidden = include_hidden
        self.skip = skip
        budget = DEFAULT_TIME_BUDGET if time_budget is None else time_budget
        self.deadline = time.monotonic() + budget
        self.cancel = cancel
        self.max_dir_entries = max_dir_entries
        # False: entries get their lstat on first use (the caller copes with a vanished one).
        self.stat_entries = stat_entries
        self.stopped: str | None = None  # "time", "cancelled", "folder too large"
        self.depth_limited = False  # a folder at max_depth was not opened
        self.unreadable = 0  # folders that could not be read (skipped)

    def __iter__(self) -> Iterator[Entry]:
        root_info = os.lstat(self.root)
        visited = {(root_info.st_dev, root_info.st_ino)}
        queue: deque[tuple[Path, str, int]] = deque([(self.root, "", 1)])
        while queue:
            folder, rel, depth = queue.popleft()
            try:
                entries = self._read(folder, rel, depth)
            except OSError:
                if folder == self.root:
                    raise
                self.unreadable += 1
                continue
            if self.skip is not None:
                skip = self.skip
                keep = getattr(skip, "keep", None)  # a filter that takes a whole folder at once
                entries = keep(entries) if keep else [e for e in entries if not skip(e)]
            # Handed out in slices, the clock and the cancel flag read between them (a read per
            # entry costs as much as the rest of the walk).
            for start in range(0, len(entries), _SLICE):
                if self._should_stop():
                    return
                yield from entries[start : start + _SLICE]
            for entry in entries:
                if entry.kind != "directory":
                    continue
                if depth >= self.max_depth:
                    self.depth_limited = True
                    continue
                try:
                    info = entry.info
                except OSError:  # gone since the listing
                    self.unreadable += 1
                    continue
                ident = (info.st_dev, info.st_ino)
                if ident in visited:
                    continue
                if info.st_ino:  # DirEntry.stat() on Windows leaves st_ino at 0
                    visited.add(ident)
                queue.append((entry.path, entry.rel, depth + 1))
            if self.stopped:
                return

    def _should_stop(self) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            self.stopped = "cancelled"
        elif time.monotonic() > self.deadline:
            self.stopped = "time"
        return self.stopped is not None

    def _read(self, folder: Path, rel: str, depth: int) -> list[Entry]:
        found: list[Entry] = []
        hidden = self.include_hidden
        prefix = rel + os.sep if rel else ""
        with os.scandir(folder) as it:
            items = {item.name: item for item in itertools.islice(it, self.max_dir_entries + 1)}
        if len(items) > self.max_dir_entries:
            self.stopped = "folder too large"
            items.popitem()
        names = list(items) if hidden else [n for n in items if not n.startswith(".")]
        names.sort()  # two C-level sorts: by folded name, ties by name (stable)
        names.sort(key=str.casefold)
        info: os.stat_result | None
        for name in names:
            item = items[name]
            try:
                if self.stat_entries:
                    st = item.stat(follow_symlinks=False)
                    info, kind = st, kind_of(st.st_mode)
                elif item.is_file(follow_symlinks=False):
                    info, kind = None, "file"
                else:
                    info, kind = None, _kind(item)
            except OSError:
                continue
            found.append(Entry(item.path, prefix + name, name, depth, kind, info, item))
        return found


def _kind(item: os.DirEntry[str]) -> str:
    """The entry's kind from the directory listing's own type; lstat only when it has none."""
    if item.is_file(follow_symlinks=False):
        return "file"
    if item.is_dir(follow_symlinks=False):
        return "directory"
    if item.is_symlink():
        return "symlink"
    return kind_of(item.stat(follow_symlinks=False).st_mode)


def is_regular(entry: Entry) -> bool:
    return entry.kind == "file"  # kind_of names only regular files "file"
