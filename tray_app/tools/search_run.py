"""One search_files run over the walk's entries: name matches, content matches, every cap.

Content is matched by Python (``line_matches``) in every case. When ripgrep is available it
first tells, per batch of candidate files, which of them may match (``search_rg``); files it
rules out are counted as searched but not read. The entries are first classified (which only
needs the name and the lstat the walk already has), then replayed in walk order through the
same counters and caps as without rg, so both engines give the same results, counts and
``truncated``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tray_app.tools import search_rg
from tray_app.tools.fs_safe import NotReadable, looks_binary, read_regular
from tray_app.tools.fs_walk import Entry, Walk, is_regular
from tray_app.tools.search_names import MAX_NAME_FILES, NameMatcher, name_hit, names_by_listing
from tray_app.tools.text_codec import detect_bom

if TYPE_CHECKING:
    from tray_app.tools.search_files import SearchFilesArgs

MAX_SCAN_FILES = 1000  # files whose content is searched
MAX_SEARCH_FILE_BYTES = 500 * 1024
MAX_MATCHES_PER_FILE = 10
MATCH_TEXT_CHARS = 200
# Candidate files per rg run: the whole 1,000-file cap in one run (measured: 4 runs of 250, one
# at a time or at once, cost 30% more than one). A batch also goes when 4,000 entries are
# pending; rg then scans it in a thread while the walk collects the next.
RG_BATCH = 1000

Kind = Literal["folder", "skip", "name", "none", "content"]


def line_matches(text: str, query: str, case_sensitive: bool) -> list[dict[str, Any]]:
    """The first match on each matching line (1-based line and column), at most 10 lines.

    Finds occurrences in the whole text and maps them to lines, instead of lowering and
    searching line by line; the same answer, since ``lower()`` keeps every character's place
    (the one exception, ``İ``, takes the line-by-line way).
    """
    needle = query if case_sensitive else query.lower()
    if "\n" in needle:
        return []  # a line never holds a line break
    hay = text if case_sensitive else text.lower()
    if len(hay) != len(text):
        return _line_matches_by_line(text, needle, case_sensitive)
    found: list[dict[str, Any]] = []
    number, counted = 1, 0
    pos = hay.find(needle)
    while pos >= 0:
        number += hay.count("\n", counted, pos)
        start = hay.rfind("\n", 0, pos) + 1
        end = hay.find("\n", pos)
        end = len(hay) if end < 0 else end
        found.append(_match(text[start:end], number, pos - start))
        if len(found) >= MAX_MATCHES_PER_FILE or end >= len(hay):
            break
        counted = pos
        pos = hay.find(needle, end + 1)
    return found


def _line_matches_by_line(text: str, needle: str, case_sensitive: bool) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        hay = line if case_sensitive else line.lower()
        column = hay.find(needle)
        if column < 0:
            continue
        found.append(_match(line, number, column))
        if len(found) >= MAX_MATCHES_PER_FILE:
            break
    return found


def _match(line: str, number: int, column: int) -> dict[str, Any]:
    shown = line.strip()
    if len(shown) > MATCH_TEXT_CHARS:
        begin = max(0, column - MATCH_TEXT_CHARS // 3)
        shown = line[begin : begin + MATCH_TEXT_CHARS].strip() + " …"
        shown = ("… " if begin else "") + shown
    return {"line": number, "text": shown, "column": column + 1}


def file_text(path: Path) -> str | None:
    """Text of a searchable file: regular, at most 500 KB, not binary; else None."""
    try:
        fd_data, _ = read_regular(path, MAX_SEARCH_FILE_BYTES)
    except (OSError, NotReadable):
        return None
    if len(fd_data) > MAX_SEARCH_FILE_BYTES:
        return None
    found = detect_bom(fd_data)
    if found is not None:  # UTF-16 text from Windows tools is searched like any other
        return fd_data[len(found[0]) :].decode(found[1], errors="replace")
    if looks_binary(fd_data):
        return None
    return fd_data.decode("utf-8", errors="replace")


class Search:
    """One search's state: results so far, counts, and whether a cap cut it short."""

    def __init__(
        self,
        args: SearchFilesArgs,
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
        self.python_only: set[str] = set()  # candidates read without asking rg
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
                    if search_rg.starts_utf32(path):
                        self.python_only.add(path)  # rg cannot decode UTF-32: Python reads it
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
                    rg, pattern, candidates, deadline=self.deadline, cancel=self._abort
                )

            batch.thread = threading.Thread(target=ask, name="metona-rg", daemon=True)
            batch.thread.start()
        else:
            batch.maybe = set()
        return batch

    def _settle(self, batch: _Batch) -> bool:
        if batch.thread is not None:
            batch.thread.join()
        if self.cancel is not None and self.cancel.is_set():
            self.truncated = True  # the walk stops at its next entry too
            return False
        return self.replay(batch.pending, batch.maybe)

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

    def replay(self, pending: list[tuple[Entry, Kind]], maybe: set[str] | None) -> bool:
        """Visit ``pending`` in order; False once a cap stopped the search. ``maybe``: the
        files rg says may match (None: rg could not answer, read them all)."""
        for entry, kind in pending:
            if (
                self.total_matches >= self.limit
                or self.read >= MAX_SCAN_FILES
                or self.scanned >= MAX_NAME_FILES
            ):
                self.truncated = True
                return False
            self.visit(entry, kind, maybe)
        return True

    def visit(self, entry: Entry, kind: Kind, maybe: set[str] | None) -> None:
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
        text = file_text(entry.path)
        if text is None:
            return
        matches = line_matches(text, self.args.query, self.args.case_sensitive)
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
