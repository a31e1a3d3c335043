"""The walk filter that hides secrets and blocked folders from listings and searches, fast.

Same answers as ``policy.is_secret_entry(path) or policy.is_blocked(path)`` for every entry a
walk meets, worked out once per walk instead of once per entry: the secret-name globs are one
compiled regular expression, and only an entry whose (case-folded) name is the last name of a
blocked folder below the walk's root is checked against the blocked list; the walk never goes
into a folder it skipped, so nothing deeper needs a check. A root that is itself blocked hides
everything (``resolve`` refuses such roots already).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from tray_app.tools.fs.fs_walk import Entry
from tray_app.tools.sandbox.path_rules import SENSITIVE_PAIRS, is_secret_name
from tray_app.tools.sandbox.policy import SandboxPolicy


def fold(name: str) -> str:
    """The sandbox's comparison form of a name: NFC, case-folded."""
    return name.casefold() if name.isascii() else unicodedata.normalize("NFC", name).casefold()


_UNSEEN = "unseen"
_PAIR_NAMES = frozenset(fold(name) for _, name in SENSITIVE_PAIRS)


class HiddenFromModel:
    """``skip`` for a walk from ``root``: True for entries the model must not see."""

    def __init__(self, policy: SandboxPolicy, root: Path | None = None) -> None:
        self.policy = policy
        self.everything = root is not None and policy.is_blocked(root)
        base = tuple(fold(p) for p in root.parts) if root is not None else ()
        names: set[str] = set()
        for folder in policy.blocked_folders():
            key = tuple(fold(p) for p in folder.parts)
            if len(key) > len(base) and key[: len(base)] == base:
                names.add(key[-1])
        self.blocked_names = frozenset(names)
        # name -> None (shown), "secret" (hidden), "check" (depends on the folder: ask policy)
        self.verdicts: dict[str, str | None] = {}

    def __call__(self, entry: Entry) -> bool:
        if self.everything:
            return True
        name = entry.name
        try:
            verdict = self.verdicts[name]
        except KeyError:
            verdict = self._verdict(name)
            if len(self.verdicts) < 100_000:
                self.verdicts[name] = verdict
        if verdict is None:
            return False
        if verdict == "secret":
            return True
        return self._check(entry.path)

    def keep_names(self, folder: str, names: list[str]) -> list[str]:
        """The names in ``folder`` not hidden: ``__call__`` over a whole folder's names, before
        the walk builds or stats anything (``fs_walk.Walk`` calls it when it is the skip)."""
        if self.everything:
            return []
        verdicts, kept = self.verdicts, []
        for name in names:
            verdict = verdicts.get(name, _UNSEEN)
            if verdict is _UNSEEN:
                verdict = self._verdict(name)
                if len(verdicts) < 100_000:
                    verdicts[name] = verdict
            if verdict is None or (verdict == "check" and not self._check(Path(folder, name))):
                kept.append(name)
        return kept

    def _check(self, path: Path) -> bool:
        return self.policy.is_secret_entry(path) or self.policy.is_blocked(path)

    def _verdict(self, name: str) -> str | None:
        folded = fold(name)
        if is_secret_name(folded):
            return "secret"
        if folded in _PAIR_NAMES or folded in self.blocked_names:
            return "check"
        return None
