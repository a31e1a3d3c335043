"""The lasting rules' look-up: most specific wins, deny wins a tie, and nothing from a file
edited by hand grants more than it says (links, ``..``, missing folders, huge lists)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tray_app.tools import tool_rules
from tray_app.tools.rule_paths import call_paths, rule_folder
from tray_app.tools.tool_rules import RuleBook


def rule(tool: str, folder: Path | str | None, action: str) -> dict[str, Any]:
    return {"tool": tool, "folder": None if folder is None else str(folder), "action": action}


def action(book: RuleBook, tool: str, *paths: Path, origin: str = "builtin") -> str | None:
    verdict = book.decide(tool, origin, call_paths([str(p) for p in paths], "/"))
    return None if verdict is None else verdict.action


def test_the_deepest_folder_wins_and_a_folder_beats_none(tmp_path: Path) -> None:
    inner = tmp_path / "项目 🚀" / "src"
    inner.mkdir(parents=True)
    book = RuleBook(
        [
            rule("write_file", None, "deny"),
            rule("write_file", tmp_path, "ask"),
            rule("write_file", inner, "allow"),
        ]
    )
    assert book.problems == []
    assert action(book, "write_file", inner / "a.txt") == "allow"
    assert action(book, "write_file", inner.parent / "b.txt") == "ask"
    assert action(book, "write_file", Path("/elsewhere/c.txt")) == "deny"
    assert action(book, "read_file", inner / "a.txt") is None  # another tool: the mode decides


def test_deny_wins_a_tie_and_any_denied_path_denies(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    book = RuleBook(
        [rule("move_file", a, "allow"), rule("move_file", a, "deny"), rule("move_file", b, "allow")]
    )
    assert action(book, "move_file", a / "x") == "deny"
    book = RuleBook([rule("move_file", a, "allow"), rule("move_file", b, "deny")])
    assert action(book, "move_file", a / "x", b / "y") == "deny"
    # Only one of the two paths is allowed: no rule covers the whole call.
    book = RuleBook([rule("move_file", a, "allow")])
    assert action(book, "move_file", a / "x", tmp_path / "y") is None


def test_a_folder_rule_of_a_tool_servers_tool_asks_since_its_folder_is_unknown(
    tmp_path: Path,
) -> None:
    """An MCP tool's arguments name no path the app can check: a folder-limited allow never
    covers it, and a folder-limited deny or ask is not passed over either: the user is asked."""
    secret = tmp_path / "私密 🔒"
    secret.mkdir()
    book = RuleBook([rule("github__write", secret, "deny")])
    assert action(book, "github__write", origin="mcp:github") == "ask"
    book = RuleBook([rule("mcp:github", secret, "deny"), rule("github__write", None, "allow")])
    assert action(book, "github__write", origin="mcp:github") == "ask"
    book = RuleBook([rule("mcp:github", None, "deny"), rule("github__write", secret, "ask")])
    assert action(book, "github__write", origin="mcp:github") == "deny"
    book = RuleBook([rule("github__write", secret, "allow")])
    assert action(book, "github__write", origin="mcp:github") is None  # the mode decides
    assert action(book, "github__read", origin="mcp:github") is None
    # A built-in tool with no path (nothing to limit) is not affected.
    book = RuleBook([rule("list_allowed_directories", secret, "deny")])
    assert action(book, "list_allowed_directories") is None


def test_a_tool_rule_beats_its_servers_rule() -> None:
    book = RuleBook([rule("mcp:github", None, "deny"), rule("github__read", None, "allow")])
    assert action(book, "github__read", origin="mcp:github") == "allow"
    assert action(book, "github__write", origin="mcp:github") == "deny"
    assert action(book, "other__write", origin="mcp:other") is None


def test_a_path_through_a_link_out_of_the_folder_is_not_covered(tmp_path: Path) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (allowed / "door").symlink_to(outside)
    book = RuleBook([rule("write_file", allowed, "allow")])
    assert action(book, "write_file", allowed / "door" / "x.txt") is None
    assert action(book, "write_file", allowed / "x.txt") == "allow"


def test_a_symlinked_rule_folder_does_not_widen(tmp_path: Path) -> None:
    target = tmp_path / "everything"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    book = RuleBook([rule("write_file", link, "allow"), rule("delete_file", link, "deny")])
    assert [(p.code, p.kept) for p in book.problems] == [
        ("folder_link", False),
        ("folder_link", True),
    ]
    assert action(book, "write_file", target / "x") is None
    assert action(book, "write_file", link / "x") is None
    # A deny is kept as written and where it leads.
    assert action(book, "delete_file", target / "x") == "deny"


def test_a_folder_that_becomes_a_link_later_stops_allowing(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    book = RuleBook([rule("write_file", folder, "allow")])
    assert action(book, "write_file", folder / "x") == "allow"
    folder.rmdir()
    folder.symlink_to("/")
    assert action(book, "write_file", folder / "x") is None


def test_bad_rules_are_reported_and_ignored(tmp_path: Path) -> None:
    entries: list[Any] = [
        "not a rule",
        rule("no_such_tool", None, "allow"),
        rule("write_file", "relative/dir", "allow"),
        rule("write_file", f"{tmp_path}/../{tmp_path.name}", "allow"),
        rule("write_file", tmp_path / "missing", "allow"),
        rule("write_file", tmp_path, "sometimes"),
        {"tool": "write_file", "folder": 42, "action": "allow"},
        rule("write_file", "~/x", "allow"),
    ]
    (tmp_path / "file").write_text("x")
    entries.append(rule("write_file", tmp_path / "file", "allow"))
    book = RuleBook(entries, known={"write_file"})
    assert len(book) == 0
    assert [p.code for p in book.problems] == [
        "not_object",
        "unknown_tool",
        "folder_relative",
        "folder_dots",
        "folder_missing",
        "bad_action",
        "folder_not_text",
        "folder_relative",
        "folder_not_dir",
    ]
    assert action(book, "write_file", tmp_path / "x") is None


def test_a_deny_on_a_missing_folder_still_holds(tmp_path: Path) -> None:
    book = RuleBook([rule("write_file", tmp_path / "later", "deny")])
    assert book.problems[0].code == "folder_missing" and book.problems[0].kept
    assert action(book, "write_file", tmp_path / "later" / "x") == "deny"


def test_past_the_limit_allow_rules_are_ignored_but_denies_hold(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(tool_rules, "MAX_RULES", 3)
    entries = [rule(f"tool_{i}", None, "allow") for i in range(5)]
    entries.append(rule("write_file", tmp_path, "deny"))
    book = RuleBook(entries)
    assert len(book) == 4
    assert [(p.index, p.code) for p in book.problems] == [(3, "too_many"), (4, "too_many")]
    assert action(book, "tool_4") is None
    assert action(book, "write_file", tmp_path / "x") == "deny"


def test_dots_in_a_call_path_are_folded_before_matching(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    book = RuleBook([rule("write_file", tmp_path / "ok", "allow")])
    assert action(book, "write_file", tmp_path / "ok" / ".." / "x") is None


def test_the_card_offers_the_workspace_or_the_targets_folder(tmp_path: Path) -> None:
    ws = str(tmp_path)
    assert rule_folder(call_paths(["a/b.txt"], ws), ws) == ws
    assert rule_folder(call_paths(["/opt/x/y.txt"], ws), ws) == "/opt/x"
    assert rule_folder([], ws) is None
    # Paths that share only the root: no folder is offered (a rule there covers everything).
    assert rule_folder(call_paths(["/opt/a.txt", "/srv/b.txt"], ws), ws) is None
    assert rule_folder(call_paths(["/a.txt"], ws), ws) is None


def test_a_thousand_rules_look_up_by_dict(tmp_path: Path) -> None:
    folders = [tmp_path / f"d{i}" for i in range(1_000)]
    for folder in folders:
        folder.mkdir()
    book = RuleBook([rule("write_file", f, "allow") for f in folders])
    assert len(book) == 1_000 and book.problems == []
    assert action(book, "write_file", folders[777] / "x") == "allow"
    assert os.path.isdir(folders[0])
