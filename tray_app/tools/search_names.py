"""The name side of search_files: which names match a query, and a names-only search that
reads the walk's folder listings, building an entry only for a hit (a glob over 20,000 names
meets a few hits; an object per name was most of its cost).
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import TYPE_CHECKING, Any

from tray_app.tools.fs_walk import Entry, Listing, Walk

if TYPE_CHECKING:
    from tray_app.tools.search_run import Search

MAX_NAME_FILES = 20_000  # files whose name is checked (cheap: no read)


class NameMatcher:
    """Globs (``*.ts``) on names; plain text matches part of a name. Answers are cached per
    name (one walk meets ``index.js`` or ``__init__.py`` in many folders)."""

    def __init__(self, query: str, case_sensitive: bool) -> None:
        pattern = query.strip()
        while pattern.startswith(("**/", "*/")):
            pattern = pattern.split("/", 1)[1]
        self.on_path = "/" in pattern
        self.glob = any(ch in pattern for ch in "*?[")
        self.case_sensitive = case_sensitive
        self.pattern = pattern if case_sensitive else pattern.casefold()
        self.regex = re.compile(fnmatch.translate(self.pattern)) if self.glob else None
        self.seen: dict[str, bool] = {}

    def __call__(self, entry: Entry) -> bool:
        if self.on_path:
            return self._test(entry.rel.replace(os.sep, "/"))
        return self.named(entry.name, "")

    def named(self, name: str, prefix: str) -> bool:
        """Whether the entry ``name`` in the folder at ``prefix`` (its path below the walk's
        root, with a trailing separator) matches."""
        if self.on_path:
            return self._test((prefix + name).replace(os.sep, "/"))
        hit = self.seen.get(name)
        if hit is None:
            hit = self._test(name)
            if len(self.seen) < 100_000:
                self.seen[name] = hit
        return hit

    def _test(self, subject: str) -> bool:
        if not self.case_sensitive:
            subject = subject.casefold()
        if self.regex is not None:
            return self.regex.match(subject) is not None
        return self.pattern in subject


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


def name_hit(entry: Entry) -> dict[str, Any]:
    """A name match: line 0 means "the name matched", not a line of the file."""
    return {
        "path": entry.path_str,
        "type": entry.kind,
        "matches": [{"line": 0, "text": entry.name, "column": 0}],
    }
