"""The name side of search_files: which names match a query, and the entry of a name match.

The names-only run over the walk's folder listings is ``search_run.names_by_listing``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import Any

from tray_app.tools.fs.fs_walk import Entry

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


def name_hit(entry: Entry) -> dict[str, Any]:
    """A name match: line 0 means "the name matched", not a line of the file."""
    return {
        "path": entry.path_str,
        "type": entry.kind,
        "matches": [{"line": 0, "text": entry.name, "column": 0}],
    }
