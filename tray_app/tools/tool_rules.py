"""Lasting rules: for a tool (or all tools of an MCP server), optionally within a folder, allow,
ask or deny.

The settings keep ``tool_rules`` as written, a list of ``{"tool", "folder", "action",
"created"}``; this module checks each entry on its own (a bad one costs only itself and is
reported with a code) and compiles the good ones into an index that answers a call in a few
dict look-ups, whatever the number of rules.

Which rule decides: one naming the tool beats one naming its server (``mcp:SERVER``); among
those the deepest folder beats a shallower one, a folder beats none; on a tie deny beats ask
beats allow. A call with several paths (a move, a read of many files) is decided by each path
(its literal form and its real one, symlinks resolved): deny if any path is denied, ask if any
asks, allow only when every path is allowed. A tool server's tool names no path the app can
check: a rule limited to a folder never allows it, and one that denies or asks makes it ask.

Nothing read from a file edited by hand can grant more than it says: an allow or ask rule whose
folder is relative, holds ``..``, is missing, is not a folder, or is (or passes through) a
symbolic link is ignored, and so is every allow rule past the ``MAX_RULES``-th entry; a deny
rule is kept wherever it can be read, since keeping it never widens anything.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["allow", "ask", "deny"]
ACTIONS: tuple[Action, ...] = ("allow", "ask", "deny")
#: Strength on a tie (same tool kind, same folder): deny beats ask beats allow.
_STRENGTH: dict[str, int] = {"allow": 0, "ask": 1, "deny": 2}
#: A server-wide rule names ``mcp:`` and the server's name in the settings.
SERVER_PREFIX = "mcp:"
#: Entries read in full; an allow rule past this many is ignored (deny and ask still hold).
MAX_RULES = 10_000
MAX_NAME = 200
MAX_FOLDER = 4_096

#: Why a rule is not (fully) in force, by code; the page and ``doctor`` say it in words.
RuleProblemCode = Literal[
    "not_object",
    "unknown_tool",
    "bad_action",
    "folder_not_text",
    "folder_relative",
    "folder_dots",
    "folder_missing",
    "folder_not_dir",
    "folder_link",
    "too_many",
]


@dataclass(frozen=True)
class RuleProblem:
    """One rule that is ignored (or, a deny, kept only for the literal folder), and why."""

    index: int
    code: RuleProblemCode
    tool: str = ""
    folder: str | None = None
    #: A deny rule stays in force although its folder has a problem (it never widens).
    kept: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "code": self.code,
            "tool": self.tool,
            "folder": self.folder,
            "kept": self.kept,
        }


@dataclass(frozen=True)
class Rule:
    """One good rule: ``folder`` is None (anywhere) or a normalised absolute path."""

    tool: str
    folder: str | None
    action: Action
    created: float | None = None
    index: int = -1

    def as_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "folder": self.folder,
            "action": self.action,
            "created": self.created,
        }


@dataclass(frozen=True)
class Verdict:
    """What the rules say of one call: the action and the rule that decided it."""

    action: Action
    rule: Rule


def known_tools(builtin: Iterable[str], servers: Iterable[str]) -> frozenset[str]:
    """The names a rule may give: the built-in tools and ``mcp:SERVER`` for each server."""
    return frozenset(builtin) | {SERVER_PREFIX + name for name in servers}


def new_rule(tool: str, folder: str | None, action: Action) -> dict[str, Any]:
    """The settings entry for a rule made now (from a card, Settings or the CLI)."""
    return {"tool": tool, "folder": folder, "action": action, "created": round(time.time(), 3)}


def _key(path: str) -> str:
    return os.path.normcase(path)


def _plain(path: str) -> str:
    return os.path.normpath(path)


def _has_dots(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return any(part in (".", "..") for part in parts)


def check_folder(folder: str) -> RuleProblemCode | None:
    """Why ``folder`` cannot carry an allow or ask rule, or None when it can."""
    if not os.path.isabs(folder) or folder.startswith("~"):
        return "folder_relative"
    if _has_dots(folder):
        return "folder_dots"
    plain = _plain(folder)
    if not os.path.lexists(plain):
        return "folder_missing"
    if os.path.realpath(plain) != plain:
        return "folder_link"
    if not os.path.isdir(plain):
        return "folder_not_dir"
    return None


def _text(value: object, limit: int) -> str | None:
    if not isinstance(value, str) or not value or len(value) > limit or "\0" in value:
        return None
    return value


@dataclass
class _ToolIndex:
    """One tool's (or server's) rules: the folder-less one and the ones by folder key."""

    anywhere: Rule | None = None
    folders: dict[str, Rule] = field(default_factory=dict)
    #: The strictest deny or ask limited to a folder: for a call whose folder is unknown.
    limited: Rule | None = None

    def add(self, rule: Rule, key: str | None) -> None:
        if key is None:
            self.anywhere = _stronger(self.anywhere, rule)
        else:
            self.folders[key] = _stronger(self.folders.get(key), rule)
            if rule.action != "allow":
                self.limited = _stronger(self.limited, rule)

    def find(self, path: str) -> Rule | None:
        """The rule of the deepest folder holding ``path`` (or the folder-less one)."""
        if self.folders:
            current = _key(path)
            while True:
                found = self.folders.get(current)
                if found is not None:
                    return found
                parent = os.path.dirname(current)
                if parent == current:
                    break
                current = parent
        return self.anywhere


def _stronger(old: Rule | None, new: Rule) -> Rule:
    if old is None or _STRENGTH[new.action] > _STRENGTH[old.action]:
        return new
    return old


class RuleBook:
    """The rules in force, indexed for look-up; built once per settings change."""

    def __init__(self, entries: Sequence[object] | None = None, *, known: Iterable[str] = ()):
        self.rules: list[Rule] = []
        self.problems: list[RuleProblem] = []
        self._index: dict[str, _ToolIndex] = {}
        known_names = frozenset(known)
        for number, entry in enumerate(entries or ()):
            self._add(number, entry, known_names)

    def __len__(self) -> int:
        return len(self.rules)

    def _add(self, index: int, entry: object, known: frozenset[str]) -> None:
        if not isinstance(entry, Mapping):
            self.problems.append(RuleProblem(index, "not_object"))
            return
        tool = _text(entry.get("tool"), MAX_NAME)
        raw_folder = entry.get("folder")
        shown_folder = raw_folder if isinstance(raw_folder, str) else None
        if tool is None or (known and tool not in known and not _mcp_name(tool)):
            self.problems.append(RuleProblem(index, "unknown_tool", str(tool or ""), shown_folder))
            return
        action = entry.get("action")
        if action not in ACTIONS:
            self.problems.append(RuleProblem(index, "bad_action", tool, shown_folder))
            return
        if action != "deny" and index >= MAX_RULES:
            self.problems.append(RuleProblem(index, "too_many", tool, shown_folder))
            return
        created = entry.get("created")
        made = float(created) if isinstance(created, (int, float)) and created == created else None
        if raw_folder is None:
            self._keep(Rule(tool, None, action, made, index), None)
            return
        folder = _text(raw_folder, MAX_FOLDER)
        if folder is None:
            self.problems.append(RuleProblem(index, "folder_not_text", tool))
            return
        problem = check_folder(folder)
        if problem is None:
            plain = _plain(folder)
            self._keep(Rule(tool, plain, action, made, index), plain)
            return
        keep = action == "deny" and problem not in ("folder_relative", "folder_dots")
        self.problems.append(RuleProblem(index, problem, tool, folder, kept=keep))
        if keep:
            # Denied as written and where it leads: both forms, never wider than either.
            plain = _plain(folder)
            rule = Rule(tool, plain, action, made, index)
            self._keep(rule, plain)
            real = os.path.realpath(plain)
            if real != plain:
                self._keep(rule, real, counted=False)

    def _keep(self, rule: Rule, folder: str | None, *, counted: bool = True) -> None:
        if counted:
            self.rules.append(rule)
        self._index.setdefault(rule.tool, _ToolIndex()).add(
            rule, None if folder is None else _key(folder)
        )

    def decide(self, tool: str, origin: str, paths: Sequence[str]) -> Verdict | None:
        """The rule deciding a call of ``tool`` (from ``origin``: ``builtin`` or
        ``mcp:SERVER``) on ``paths`` (absolute; give each literal and real form), or None
        when no rule covers it all and the mode decides."""
        if not self._index:
            return None
        own = self._index.get(tool)
        server = self._index.get(origin) if origin.startswith(SERVER_PREFIX) else None
        if own is None and server is None:
            return None
        if not paths:
            general = _first(own, server, None)
            limited = _strictest(own, server) if origin.startswith(SERVER_PREFIX) else None
            if limited is not None and (general is None or general.action == "allow"):
                # A tool server's tool does not say which folder it works in: a rule limited to
                # a folder can neither be passed over nor checked, so its deny or ask asks.
                return Verdict("ask", limited)
            return _verdict(general)
        found = [_first(own, server, path) for path in paths]
        deny = next((r for r in found if r is not None and r.action == "deny"), None)
        if deny is not None:
            return Verdict("deny", deny)
        ask = next((r for r in found if r is not None and r.action == "ask"), None)
        if ask is not None:
            return Verdict("ask", ask)
        if any(r is None for r in found):
            return None
        allowed = found[0]
        assert allowed is not None
        # A folder that became a link (or went) since the rules were read allows nothing. The
        # real paths being inside already keep such a rule from widening; this says it plainly.
        folders = {r.folder for r in found if r is not None and r.folder}
        if any(not _usable(folder) for folder in folders):
            return None
        return Verdict("allow", allowed)


def rule_rows(entries: Sequence[object], known: frozenset[str]) -> list[dict[str, Any]]:
    """Each kept entry numbered from 1, with whether it holds and why not."""
    book = RuleBook(entries, known=known)
    problems = {p.index: p.as_dict() for p in book.problems}
    rows: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        raw = entry if isinstance(entry, dict) else {}
        problem = problems.get(index)
        rows.append(
            {
                "n": index + 1,
                "tool": raw.get("tool"),
                "folder": raw.get("folder"),
                "action": raw.get("action"),
                "created": raw.get("created"),
                "in_force": problem is None or bool(problem["kept"]),
                "problem": problem,
            }
        )
    return rows


_RECHECK_S = 2.0
_checked: dict[str, tuple[float, bool]] = {}


def _usable(folder: str) -> bool:
    """``check_folder`` of an allow rule's folder, remembered for a moment (a burst of calls
    in one folder checks it once), in a bounded table."""
    now = time.monotonic()
    seen = _checked.get(folder)
    if seen is not None and now - seen[0] < _RECHECK_S:
        return seen[1]
    if len(_checked) >= 4_096:
        _checked.clear()
    usable = check_folder(folder) is None
    _checked[folder] = (now, usable)
    return usable


def _first(own: _ToolIndex | None, server: _ToolIndex | None, path: str | None) -> Rule | None:
    """The tool's own rule for ``path`` if it has one, else its server's."""
    for index in (own, server):
        if index is None:
            continue
        found = index.anywhere if path is None else index.find(path)
        if found is not None:
            return found
    return None


def _strictest(own: _ToolIndex | None, server: _ToolIndex | None) -> Rule | None:
    """The strictest deny or ask limited to a folder, of the tool or of its server."""
    found: Rule | None = None
    for index in (own, server):
        if index is not None and index.limited is not None:
            found = _stronger(found, index.limited)
    return found


def _verdict(rule: Rule | None) -> Verdict | None:
    return None if rule is None else Verdict(rule.action, rule)


def _mcp_name(tool: str) -> bool:
    """An MCP tool's app-wide name (``server__tool``): such a tool may be known only once its
    server runs, so it is not reported as unknown (a server-wide ``mcp:NAME`` must be known)."""
    return "__" in tool and not tool.startswith(SERVER_PREFIX)


_cached: tuple[object, RuleBook] | None = None


def book_for(entries: Sequence[object]) -> RuleBook:
    """The compiled rules of a settings list, built once while that list is in force (each
    settings change makes a new list); an allow's folder is checked again at each use."""
    global _cached
    if _cached is not None and _cached[0] is entries:
        return _cached[1]
    book = RuleBook(entries)
    _cached = (entries, book)
    return book
