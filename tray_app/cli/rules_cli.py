"""``metona-tray rules [list] | add ACTION TOOL [--folder DIR] | remove N``: the lasting
permission rules from the terminal.

While the app runs, the rules are read and changed through it (its instance socket), so the
change applies to its very next call and is saved by it; otherwise the settings file is read
and written here. The words are the page's own (``rules.*`` in web/locales), in the terminal's
language. Exit codes: 0 done, 1 failed (not saved, the app did not answer), 2 usage (a bad
rule, no such rule number).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from tray_app.base.paths import AppPaths
from tray_app.i18n import written_out

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rules = sub.add_parser("rules", help="list, add and remove lasting permission rules")
    rules.add_argument("--json", action="store_true", help="print the rules as JSON")
    verbs = rules.add_subparsers(dest="rules_command")
    listed = verbs.add_parser("list", help="every rule, what it covers and whether it holds")
    listed.add_argument("--json", action="store_true", help="print the rules as JSON")
    add = verbs.add_parser("add", help="add a rule (one for the same tool and folder is replaced)")
    add.add_argument("action", choices=["allow", "ask", "deny"])
    add.add_argument("tool", help="a tool's name, or mcp:SERVER for all tools of a server")
    add.add_argument("--folder", help="only in this folder and below (default: anywhere)")
    add.add_argument("--json", action="store_true", help="print the rules as JSON after")
    remove = verbs.add_parser("remove", help="remove a rule by its number (see `rules list`)")
    remove.add_argument("number", type=int, metavar="N")
    remove.add_argument("--json", action="store_true", help="print the rules as JSON after")


def _language() -> str:
    from tray_app.i18n import system_language

    return system_language()


def words(language: str, key: str, **fields: object) -> str:
    """The page's text ``key`` in ``language`` (English when it has none), filled in."""
    from tray_app.web_files import locale_texts

    text = locale_texts(language).get(key) or locale_texts("en").get(key) or key
    try:
        return text.format_map({name: str(value) for name, value in fields.items()})
    except (KeyError, IndexError, ValueError):
        return text


def problem_text(problem: Mapping[str, Any], language: str) -> str:
    """Why a rule is ignored (or, a deny, kept as written), in ``language``."""
    why = words(
        language,
        f"rules.problem.{problem['code']}",
        tool=problem.get("tool") or "",
        folder=problem.get("folder") or "",
    )
    return words(language, "rules.kept" if problem.get("kept") else "rules.ignored", why=why)


def known_names(servers: Mapping[str, Any]) -> frozenset[str]:
    """The built-in tools' names and ``mcp:SERVER`` for each configured server."""
    from tray_app.tools.registry import default_registry
    from tray_app.tools.tool_rules import known_tools

    return known_tools(default_registry().names(), servers)


def listing(entries: Sequence[object], known: frozenset[str]) -> list[dict[str, Any]]:
    from tray_app.tools.tool_rules import rule_rows

    return rule_rows(entries, known)


class RuleStore:
    """The rules where they live now: the running app, else the settings file."""

    def __init__(self, paths: AppPaths) -> None:
        self.paths = paths
        self.instance = _running(paths)

    def read(self) -> tuple[list[Any], dict[str, Any]]:
        """The rules and the MCP servers configured."""
        if self.instance is not None:
            reply = self.instance.send({"command": "tool_rules"}, timeout=30)
            if not reply.get("ok"):
                raise RuntimeError(str(reply.get("error") or "the app did not answer"))
            return list(reply["rules"]), dict(reply.get("servers") or {})
        from tray_app.store.settings import load_settings

        settings = load_settings(self.paths.settings_file)
        return list(settings.tool_rules), dict(settings.mcp_servers)

    def write(self, rules: list[Any]) -> None:
        if self.instance is not None:
            reply = self.instance.send({"command": "tool_rules", "rules": rules}, timeout=30)
            if not reply.get("ok"):
                raise RuntimeError(str(reply.get("error") or "the app did not answer"))
            return
        from tray_app.store.settings import load_settings, save_settings

        settings = load_settings(self.paths.settings_file)
        save_settings(settings.model_copy(update={"tool_rules": rules}), self.paths.settings_file)


def _running(paths: AppPaths) -> Any:
    """The running app's instance to talk to, or None."""
    from tray_app.desktop.instance.instance import SingleInstance

    instance = SingleInstance(paths.runtime_dir)
    if not instance.lock_path.exists():
        return None
    if instance.acquire():  # nobody holds it
        instance.release()
        return None
    return instance


def run_rules(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    language = _language()
    verb = getattr(args, "rules_command", None) or "list"
    store = RuleStore(AppPaths.from_env())
    try:
        rules, servers = store.read()
    except Exception as exc:  # the app did not answer, the file cannot be read
        err.write(f"metona-tray rules: {written_out(exc)}\n")
        return EXIT_FAILED
    known = known_names(servers)
    said: str | None = None
    if verb == "add":
        made = _new_rule(args, known, language)
        if isinstance(made, str):
            err.write(f"metona-tray rules: {made}\n")
            return EXIT_USAGE
        rules = [r for r in rules if not _same(r, made)] + [made]
        said = words(language, "rules.added", **_shown(made, language))
    elif verb == "remove":
        if not 1 <= args.number <= len(rules):
            text = words(language, "rules.no_such", n=args.number, count=len(rules))
            err.write(f"metona-tray rules: {text}\n")
            return EXIT_USAGE
        gone = rules.pop(args.number - 1)
        shown = _shown(gone if isinstance(gone, dict) else {}, language)
        said = words(language, "rules.removed", n=args.number, **shown)
    if said is not None:
        try:
            store.write(rules)
        except Exception as exc:
            why = written_out(exc)
            err.write(f"metona-tray rules: {words(language, 'rules.not_saved', why=why)}\n")
            return EXIT_FAILED
    rows = listing(rules, known)
    if args.json:
        out.write(_json(rows) + "\n")
        return EXIT_OK
    if said is not None:
        out.write(written_out(said) + "\n")
        return EXIT_OK
    _print(rows, language, out)
    return EXIT_OK


def _new_rule(args: argparse.Namespace, known: frozenset[str], language: str) -> Any:
    """The rule to add, or why it cannot be (in ``language``)."""
    from tray_app.tools.tool_rules import RuleBook, new_rule

    folder = None
    if args.folder is not None:
        # A folder named on the command line is the user's own: relative to where they are.
        folder = os.path.normpath(os.path.abspath(os.path.expanduser(args.folder)))
    made = new_rule(args.tool, folder, args.action)
    book = RuleBook([made], known=known)
    if book.problems and not book.problems[0].kept:
        problem = book.problems[0]
        why = words(
            language, f"rules.problem.{problem.code}", tool=problem.tool, folder=folder or ""
        )
        return words(language, "rules.refused", why=why)
    return made


def _same(entry: object, made: Mapping[str, Any]) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("tool") == made["tool"]
        and entry.get("folder") == made["folder"]
    )


def _shown(rule: Mapping[str, Any], language: str) -> dict[str, str]:
    action = str(rule.get("action"))
    return {
        "action": words(language, f"rules.action.{action}") if action in _ACTIONS else action,
        "tool": str(rule.get("tool")),
        "folder": str(rule.get("folder") or words(language, "rules.anywhere")),
    }


_ACTIONS = ("allow", "ask", "deny")


def _print(rows: list[dict[str, Any]], language: str, out: TextIO) -> None:
    if not rows:
        out.write(words(language, "rules.none") + "\n")
        return
    width = len(str(len(rows)))
    for row in rows:
        shown = _shown(row, language)
        when = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(row["created"]))
            if isinstance(row["created"], (int, float)) and 0 < row["created"] < 2**33
            else "-"
        )
        line = f"#{row['n']:<{width}}  {shown['action']:<6} {shown['tool']}  {shown['folder']}"
        out.write(written_out(f"{line}  ({when})") + "\n")
        if row["problem"] is not None:
            out.write(written_out(f"{' ' * (width + 3)}{problem_text(row['problem'], language)}"))
            out.write("\n")


def _json(rows: list[dict[str, Any]]) -> str:
    """JSON of the rows; ``\\u`` escapes when a value holds bidi or lone surrogates."""
    text = json.dumps({"rules": rows}, ensure_ascii=False, indent=2)
    if any(line != written_out(line) for line in text.split("\n")):
        text = json.dumps({"rules": rows}, indent=2)
    return text
