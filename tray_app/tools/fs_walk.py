"""A bounded, breadth-first directory walk that never follows symbolic links.

Recursive listing, search and the recursive-delete check all use it. Breadth first, so when a
cap stops the walk the shallow entries, which matter most, are already in. It stops at a time
budget and on cancellation, skips folders it already visited (bind-mount loops), and reads at
most ``max_dir_entries`` names of any one folder. ``stopped`` says why it stopped early.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tray_app.tools.fs_safe import kind_of

DEFAULT_TIME_BUDGET = 10.0
MAX_DIR_ENTRIES = 20_000


@dataclass(frozen=True)
class Entry:
    path: Path
    rel: str
    name: str
    depth: int  # 1 = directly inside the root
    kind: str  # file, directory, symlink, or a special kind (named pipe, socket, device)
    info: os.stat_result  # lstat: never followed


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
    ) -> None:
        self.root = root
        self.max_depth = max_depth
        self.include_hidden = include_hidden
        self.skip = skip
        budget = DEFAULT_TIME_BUDGET if time_budget is None else time_budget
        self.deadline = time.monotonic() + budget
        self.cancel = cancel
        self.max_dir_entries = max_dir_entries
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
            for entry in entries:
                if self._should_stop():
                    return
                if self.skip is not None and self.skip(entry):
                    continue
                yield entry
                if entry.kind != "directory":
                    continue
                if depth >= self.max_depth:
                    self.depth_limited = True
                    continue
                ident = (entry.info.st_dev, entry.info.st_ino)
                if ident in visited:
                    continue
                if entry.info.st_ino:  # DirEntry.stat() on Windows leaves st_ino at 0
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
        with os.scandir(folder) as it:
            for item in it:
                if len(found) >= self.max_dir_entries:
                    self.stopped = "folder too large"
                    break
                if not self.include_hidden and item.name.startswith("."):
                    continue
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                path = Path(item.path)
                found.append(
                    Entry(
                        path=path,
                        rel=os.path.join(rel, item.name) if rel else item.name,
                        name=item.name,
                        depth=depth,
                        kind=kind_of(info.st_mode),
                        info=info,
                    )
                )
        found.sort(key=lambda e: (e.name.casefold(), e.name))
        return found


def is_regular(entry: Entry) -> bool:
    return stat.S_ISREG(entry.info.st_mode)
