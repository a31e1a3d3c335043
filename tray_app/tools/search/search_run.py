"""One search_files run over the walk's entries: name matches, content matches, every cap.

Content is matched by Python (``search_lines``) in every case. When ripgrep is available it
first tells, per batch of candidate files, which of them may match (``search_rg``); files it
rules out are counted as searched but not read, and the first files it names are matched in
its thread as it names them, while it scans the rest. The entries are first classified
(which only needs the name and the lstat the walk already has), then replayed in walk order
through the same counters and caps as without rg, so both engines give the same results,
counts and ``truncated``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from tray_app.tools.fs.fs_walk import Entry, Listing, Walk, is_regular
from tray_app.tools.search import search_rg
from tray_app.tools.search.search_lines import MAX_SEARCH_FILE_BYTES, ByteNeedle, file_matches
from tray_app.tools.search.search_names import MAX_NAME_FILES, NameMatcher, name_hit


class SearchQuery(Protocol):
    """What a search is asked (search_files' arguments), read-only."""

    @property
    def query(self) -> str: ...
    @property
    def search_type(self) -> str: ...
    @property
    def case_sensitive(self) -> bool: ...
    @property
    def max_results(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def file_extensions(self) -> Sequence[str] | None: ...


MAX_SCAN_FILES = 1000  # files whose content is searched
# Candidate files per rg run: the whole 1,000-file cap in one run (measured: 4 runs of 250, one
# at a time or at once, cost 30% more than one). A batch also goes when 4,000 entries are
# pending; rg then scans it in a thread while the walk collects the next.
RG_BATCH = 1000
# Files of a batch matched as rg names them (the rest when the replay meets them): a search
# whose first files fill the page must not read hundreds more in vain.
EARLY_FILES = 64

Kind = Literal["folder", "skip", "name", "none", "content"]


class Search:
    """One search's state: results so far, counts, and whether a cap cut it short."""

    def __init__(
        self,
        args: SearchQuery,
        *,
        rg: str | None = None,
        cancel: threading.Event | None = None,
        deadline: float | None = None,
    ) -> None:
        self.args = args
        # Matches to find: the ones a page skips (``offset``) and the page itself.
        self.limit = args.offset + args.max_results
        self.by_name = args.search_type in ("filename", "both")
        self.by_content = args.search_type in ("content", "both")
        self.matcher = NameMatcher(args.query, args.case_sensitive)
        self.exts = tuple(args.file_extensions or ())
        self.needle = ByteNeedle.of(args.query, args.case_sensitive) if self.by_content else None
        self.results: list[dict[str, Any]] = []
        self.total_matches = 0
        self.scanned = 0  # files looked at
        self.read = 0  # files whose content was searched
        self.truncated = False
        self.cancel = cancel
        self.deadline = deadline if deadline is not None else time.monotonic() + 10.0
        pattern = search_rg.rg_pattern(args.query, args.case_sensitive) if rg else None
        self.rg = rg if pattern is not None and self.by_content else None
        self.pattern = pattern or ""
        self.engine = "ripgrep" if self.rg else "python"
        self.python_only: set[str] = set()  # candidates read whatever rg says
        self.batches = 0  # rg runs so far
        self._abort = _Either(cancel)  # set when the search ends: rg runs still going stop

    def run(self, entries: Iterable[Entry]) -> None:
        if self.rg is None:
            self._run_direct(entries)
        else:
            self._run_batched(entries)

    def _run_direct(self, entries: Iterable[Entry]) -> None:
        """Without rg: visit each entry as it comes (names only, or Python reads)."""
        if not self.by_content and isinstance(entries, Walk):
            names_by_listing(self, entries)
            return
        limit = self.limit
        for entry in entries:
            if (
                self.total_matches >= limit
                or self.read >= MAX_SCAN_FILES
                or (self.scanned >= MAX_NAME_FILES)
            ):
                self.truncated = True
                return
            self.visit(entry, self.classify(entry), None)

    def _run_batched(self, entries: Iterable[Entry]) -> None:
        """Classify entries into batches; rg works on each batch (in a thread) while the walk
        goes on; batches are replayed in walk order. Stops pulling where Python would."""
        inflight: deque[_Batch] = deque()
        pending: list[tuple[Entry, Kind]] = []
        candidates: list[str] = []
        argv_chars = 0
        scanned = read = 0  # what the replay will count, known before it runs
        last = False
        try:
            for entry in entries:
                kind = self.classify(entry)
                pending.append((entry, kind))
                if last:  # the entry after a cap: the replay marks the result truncated
                    break
                if kind in ("name", "none", "content"):
                    scanned += 1
                if kind == "content":
                    read += 1
                    path = entry.path_str
                    if "\n" in path:  # rg names files a line each: Python reads this one
                        self.python_only.add(path)
                    else:
                        candidates.append(path)
                        argv_chars += len(path) + 1
                full = len(candidates) >= RG_BATCH or argv_chars >= search_rg.MAX_ARGV_CHARS
                if full or len(pending) >= 4 * RG_BATCH:
                    while inflight:  # one rg at a time: two would fight over two cores
                        if not self._settle(inflight.popleft()):
                            return
                    inflight.append(self._launch(pending, candidates))
                    pending, candidates, argv_chars = [], [], 0
                last = (
                    self.total_matches >= self.limit
                    or read >= MAX_SCAN_FILES
                    or scanned >= MAX_NAME_FILES
                )
            inflight.append(self._launch(pending, candidates))
            while inflight:
                if not self._settle(inflight.popleft()):
                    return
        finally:
            self._abort.set()  # rg runs still going (a cap was met) are killed

    def _launch(self, pending: list[tuple[Entry, Kind]], candidates: list[str]) -> _Batch:
        batch = _Batch(pending, candidates)
        if candidates and self.rg is not None:
            self.batches += 1
            rg, pattern = self.rg, self.pattern

            def ask() -> None:
                batch.maybe = search_rg.may_match(
                    rg,
                    pattern,
                    candidates,
                    deadline=self.deadline,
                    cancel=self._abort,
                    on_named=lambda path: self._read_early(batch, path),
                )

            batch.thread = threading.Thread(target=ask, name="metona-rg", daemon=True)
            batch.thread.start()
            # rg cannot decode UTF-32 (its answer about such a file means nothing): Python
            # reads those itself. Picked out while rg runs, not before it starts.
            self.python_only.update(path for path in candidates if search_rg.starts_utf32(path))
        else:
            batch.maybe = set()
        return batch

    def _read_early(self, batch: _Batch, path: str) -> None:
        """Match a file rg has just named, in rg's thread while rg scans the rest (instead of
        after it). Bounded, so a search whose cap the first files meet reads few in vain."""
        if (
            batch.early_matches >= self.limit
            or len(batch.early) >= EARLY_FILES
            or self._abort.is_set()
        ):
            return
        matches = file_matches(Path(path), self.args.query, self.args.case_sensitive, self.needle)
        batch.early[path] = matches
        batch.early_matches += len(matches or ())

    def _settle(self, batch: _Batch) -> bool:
        if batch.thread is not None:
            batch.thread.join()
        if self.cancel is not None and self.cancel.is_set():
            self.truncated = True  # the walk stops at its next entry too
            return False
        return self.replay(batch.pending, batch.maybe, batch.early)

    def classify(self, entry: Entry) -> Kind:
        if entry.kind == "directory":
            return "folder"
        if not is_regular(entry) or (self.exts and not entry.name.lower().endswith(self.exts)):
            return "skip"
        if self.by_name and self.matcher(entry):
            return "name"
        if not self.by_content:
            return "none"
        try:
            info = entry.info
        except OSError:  # gone since the walk listed it
            return "skip"
        if (
            info.st_size > MAX_SEARCH_FILE_BYTES
            or info.st_nlink > 1  # other names may be outside (sandbox docstring)
        ):
            return "none"
        return "content"

    def replay(
        self,
        pending: list[tuple[Entry, Kind]],
        maybe: set[str] | None,
        early: dict[str, list[dict[str, Any]] | None] | None = None,
    ) -> bool:
        """Visit ``pending`` in order; False once a cap stopped the search. ``maybe``: the
        files rg says may match (None: rg could not answer, read them all); ``early``: the
        matches of files already read while rg ran."""
        for entry, kind in pending:
            if (
                self.total_matches >= self.limit
                or self.read >= MAX_SCAN_FILES
                or self.scanned >= MAX_NAME_FILES
            ):
                self.truncated = True
                return False
            self.visit(entry, kind, maybe, early)
        return True

    def visit(
        self,
        entry: Entry,
        kind: Kind,
        maybe: set[str] | None,
        early: dict[str, list[dict[str, Any]] | None] | None = None,
    ) -> None:
        if kind == "folder":
            if self.by_name and not self.exts and self.matcher(entry):
                self.add(name_hit(entry), 1)
            return
        if kind == "skip":
            return
        self.scanned += 1
        if kind == "name":
            self.add(name_hit(entry), 1)
            return
        if kind == "none":
            return
        self.read += 1
        path = entry.path_str
        if maybe is not None and path not in maybe and path not in self.python_only:
            return  # rg read it and found no line the Python match could find
        if early is not None and path in early:
            matches = early[path]
        else:
            matches = file_matches(
                entry.path, self.args.query, self.args.case_sensitive, self.needle
            )
        if matches is None:
            return
        room = self.limit - self.total_matches
        if len(matches) > room:
            matches, self.truncated = matches[:room], True
        if matches:
            self.add({"path": entry.path_str, "type": "file", "matches": matches}, len(matches))

    def add(self, result: dict[str, Any], count: int) -> None:
        self.results.append(result)
        self.total_matches += count


class _Batch:
    """Entries waiting for rg's answer about their candidate files."""

    def __init__(self, pending: list[tuple[Entry, Kind]], candidates: list[str]) -> None:
        self.pending = pending
        self.candidates = candidates
        self.thread: threading.Thread | None = None
        self.maybe: set[str] | None = None
        # Files rg named, already matched in its thread: written there, read after the join.
        self.early: dict[str, list[dict[str, Any]] | None] = {}
        self.early_matches = 0

    def done(self) -> bool:
        return self.thread is None or not self.thread.is_alive()


class _Either(threading.Event):
    """Set when set itself or when the tool call's cancel is: what rg runs watch."""

    def __init__(self, other: threading.Event | None) -> None:
        super().__init__()
        self.other = other

    def is_set(self) -> bool:
        return super().is_set() or (self.other is not None and self.other.is_set())


def single_file(path: Path) -> list[Entry]:
    info = os.lstat(path)
    return [Entry(path=path, rel=path.name, name=path.name, depth=0, kind="file", info=info)]


def names_by_listing(search: Search, walk: Walk) -> None:
    """Names only, folder by folder, an entry built only for a hit (20,000 names, a few
    hits). A folder that cannot reach a cap is counted and matched in bulk; the one that
    may goes name by name, so the caps cut where they would entry by entry."""
    limit, named, exts = search.limit, search.matcher.named, search.exts
    for listing in walk.listings():
        names, kinds, prefix = listing.names, listing.kinds, listing.prefix
        if exts:
            files = sum(
                1
                for name, kind in zip(names, kinds, strict=True)
                if kind == "file" and name.lower().endswith(exts)
            )
        else:
            files = kinds.count("file")
        hits = [index for index, name in enumerate(names) if named(name, prefix)]
        if search.scanned + files < MAX_NAME_FILES and search.total_matches + len(hits) < limit:
            search.scanned += files
            for index in hits:
                kind = kinds[index]
                if exts:  # files with those extensions only
                    wanted = kind == "file" and names[index].lower().endswith(exts)
                else:
                    wanted = kind in ("file", "directory")
                if wanted:
                    search.add(name_hit(listing.entry(index)), 1)
        elif not _one_by_one(search, listing):
            return


def _one_by_one(search: Search, listing: Listing) -> bool:
    """One folder of ``names_by_listing`` name by name; False once a cap stopped it."""
    limit, named, exts = search.limit, search.matcher.named, search.exts
    prefix, kinds = listing.prefix, listing.kinds
    for index, name in enumerate(listing.names):
        if search.total_matches >= limit or search.scanned >= MAX_NAME_FILES:
            search.truncated = True
            return False
        kind = kinds[index]
        if kind == "directory":
            if not exts and named(name, prefix):
                search.add(name_hit(listing.entry(index)), 1)
        elif kind == "file" and not (exts and not name.lower().endswith(exts)):
            search.scanned += 1
            if named(name, prefix):
                search.add(name_hit(listing.entry(index)), 1)
    return True
