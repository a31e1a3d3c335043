"""A bounded, breadth-first directory walk that never follows symbolic links.

Recursive listing, search and the recursive-delete check all use it. Breadth first, so when a
cap stops the walk the shallow entries, which matter most, are already in. It stops at a time
budget and on cancellation, skips folders it already visited (bind-mount loops), and reads at
most ``max_dir_entries`` names of any one folder. ``stopped`` says why it stopped early.

A folder is read into a ``Listing`` (names sorted, the name filter applied, kinds from the
listing's own type): iterating the walk builds an ``Entry`` per name, while a name search reads
the listings (``Walk.listings``) and builds entries only for its hits.

On POSIX the walk never uses a path string after the start: the root is opened from the file
system's root without following links (``fs.opened``), each folder is opened from it name by
name the same way, and listed and stat'ed through its descriptor, which stays open while the
folder's consumer reads it (an entry's lazy ``stat`` needs it) and is closed before the next:
two or three descriptors at any time, whatever the tree's size.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

from tray_app.tools.fs.fs_safe import kind_of
from tray_app.tools.fs.opened import BY_DESCRIPTOR, open_below, open_chain, opened

DEFAULT_TIME_BUDGET = 10.0
MAX_DIR_ENTRIES = 20_000
_SLICE = 256


class Entry:
    """One entry met by the walk. ``info`` is its ``lstat`` (never followed), taken on first
    use: the walk itself stats only folders (for loop detection) and entries whose type the
    directory listing did not give; a search stats only the files it may read."""

    __slots__ = ("_info", "_item", "_listing", "_path", "depth", "kind", "name", "rel")

    def __init__(
        self,
        path: Path | str,
        rel: str,
        name: str,
        depth: int,  # 1 = directly inside the root
        kind: str,  # file, directory, symlink, or a special kind (named pipe, socket, device)
        info: os.stat_result | None = None,
        item: os.DirEntry[str] | None = None,
        listing: Listing | None = None,
    ) -> None:
        self._path = path
        self._listing = listing  # an item read through a folder descriptor: while it is open
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
            listing = self._listing
            if self._item is not None and (listing is None or listing.fd is not None):
                self._info = self._item.stat(follow_symlinks=False)
            else:  # its folder is closed: reach it again, never through a link
                with opened(self.path) as here:
                    self._info = here.lstat()
        return self._info

    def __repr__(self) -> str:
        return f"Entry({self.rel!r}, {self.kind})"


class Listing:
    """One folder as the walk read it: the names it keeps (walk order) and their kinds.

    Entries are built on demand: a name search over 20,000 files builds only its hits and the
    folders (``Walk.listings``), instead of an object per name.
    """

    __slots__ = (
        "base",
        "depth",
        "fd",
        "folder",
        "infos",
        "items",
        "kinds",
        "names",
        "prefix",
        "subfolders",
    )

    def __init__(self, folder: str, prefix: str, depth: int, fd: int | None = None) -> None:
        self.folder = folder
        self.base = folder if folder.endswith(os.sep) else folder + os.sep
        # The folder's descriptor while its consumer reads it (POSIX), then None: the items'
        # own ``stat`` goes through it and must not outlive it.
        self.fd = fd
        self.prefix = prefix  # the folder's path below the root, with a trailing separator
        self.depth = depth  # of the entries: 1 = directly inside the root
        self.names: list[str] = []
        self.kinds: list[str] = []
        self.items: list[os.DirEntry[str]] = []
        self.infos: list[os.stat_result | None] = []
        # The folders the walk goes into next; None: every directory kept here. A consumer
        # that filters entries itself (``Walk.__iter__`` with a per-entry ``skip``) sets it.
        self.subfolders: list[Entry] | None = None

    def entry(self, index: int) -> Entry:
        name, item = self.names[index], self.items[index]
        kind, info = self.kinds[index], self.infos[index]
        return Entry(self.base + name, self.prefix + name, name, self.depth, kind, info, item, self)

    def entries(self) -> list[Entry]:
        prefix, depth, base = self.prefix, self.depth, self.base
        return [
            Entry(base + name, prefix + name, name, depth, kind, info, item, self)
            for name, kind, item, info in zip(
                self.names, self.kinds, self.items, self.infos, strict=True
            )
        ]

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def folders(self) -> list[Entry]:
        if self.subfolders is not None:
            return self.subfolders
        return [self.entry(i) for i, kind in enumerate(self.kinds) if kind == "directory"]


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
        # A filter that decides by folder and name (``walk_filter.HiddenFromModel``) runs on
        # the names, before any entry is built or any name is stat'ed.
        self.keep_names: Callable[[str, list[str]], list[str]] | None = getattr(
            skip, "keep_names", None
        )
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
        skip = None if self.keep_names is not None else self.skip
        for listing in self.listings():
            entries = listing.entries()
            if skip is not None:
                entries = [entry for entry in entries if not skip(entry)]
            listing.subfolders = [entry for entry in entries if entry.kind == "directory"]
            # Handed out in slices, the clock and the cancel flag read between them (a read per
            # entry costs as much as the rest of the walk); ``listings`` read them for the first.
            for start in range(0, len(entries), _SLICE):
                if start and self.should_stop():
                    return
                yield from entries[start : start + _SLICE]

    def listings(self) -> Iterator[Listing]:
        """The folders in walk order, each read, name-filtered and sorted. The walk goes into
        a folder's subfolders once its consumer is done with it; it stops (``stopped``) before
        a folder with entries when the time is up or the call was cancelled."""
        root_fd = open_chain(self.root) if BY_DESCRIPTOR else None
        try:
            yield from self._listings(root_fd)
        finally:
            if root_fd is not None:
                os.close(root_fd)

    def _listings(self, root_fd: int | None) -> Iterator[Listing]:
        root_info = os.lstat(self.root) if root_fd is None else os.fstat(root_fd)
        visited = {(root_info.st_dev, root_info.st_ino)}
        queue: deque[tuple[str, str, int]] = deque([(os.fspath(self.root), "", 1)])
        while queue:
            folder, rel, depth = queue.popleft()
            try:
                listing = self._read(folder, rel, depth, root_fd)
            except OSError:
                if depth == 1:
                    raise
                self.unreadable += 1
                continue
            try:
                if listing.names and self.should_stop():
                    return
                yield listing
                for entry in listing.folders():
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
                    queue.append((entry.path_str, entry.rel, depth + 1))
            finally:
                listing.close()
            if self.stopped:
                return

    def should_stop(self) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            self.stopped = "cancelled"
        elif time.monotonic() > self.deadline:
            self.stopped = "time"
        return self.stopped is not None

    def _read(self, folder: str, rel: str, depth: int, root_fd: int | None) -> Listing:
        """The folder read (through its descriptor, reached from the root's without following
        a link, when there is one: ``fs.opened``); the listing holds the descriptor."""
        fd = None if root_fd is None else open_below(root_fd, rel.split(os.sep) if rel else [])
        listing = Listing(folder, rel + os.sep if rel else "", depth, fd)
        try:
            return self._fill(listing, folder if fd is None else fd)
        except BaseException:
            listing.close()
            raise

    def _fill(self, listing: Listing, where: str | int) -> Listing:
        folder, cap = listing.folder, self.max_dir_entries + 1
        with os.scandir(where) as it:
            items = {item.name: item for item in itertools.islice(it, cap)}
        if len(items) > self.max_dir_entries:
            self.stopped = "folder too large"
            items.popitem()
        names = list(items) if self.include_hidden else [n for n in items if not n.startswith(".")]
        if self.keep_names is not None:
            names = self.keep_names(folder, names)
        names.sort()  # two C-level sorts: by folded name, ties by name (stable)
        names.sort(key=str.casefold)
        chosen = [items[name] for name in names]
        try:  # in bulk; one by one only when an entry vanished or could not be stat'ed
            if self.stat_entries:
                stats = [item.stat(follow_symlinks=False) for item in chosen]
                kinds = [kind_of(info.st_mode) for info in stats]
                infos: list[os.stat_result | None] = [*stats]
            else:
                kinds = ["file" if i.is_file(follow_symlinks=False) else _kind(i) for i in chosen]
                infos = [None] * len(chosen)
        except OSError:
            return self._read_one_by_one(listing, names, chosen)
        listing.names, listing.kinds, listing.items, listing.infos = names, kinds, chosen, infos
        return listing

    def _read_one_by_one(
        self, listing: Listing, names: list[str], items: list[os.DirEntry[str]]
    ) -> Listing:
        info: os.stat_result | None
        for name, item in zip(names, items, strict=True):
            try:
                if self.stat_entries:
                    info = item.stat(follow_symlinks=False)
                    kind = kind_of(info.st_mode)
                elif item.is_file(follow_symlinks=False):
                    info, kind = None, "file"
                else:
                    info, kind = None, _kind(item)
            except OSError:  # gone since the listing
                continue
            listing.names.append(name)
            listing.kinds.append(kind)
            listing.items.append(item)
            listing.infos.append(info)
        return listing


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
