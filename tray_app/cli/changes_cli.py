"""``metona-tray changes`` and ``metona-tray undo``: the undo journal from the terminal.

The same operations as the tray menu's "Undo last change" and the cards' Undo button
(``Core.undo_last`` / ``Core.undo_change``), on the journal every process on this data folder
shares, so a change the desktop app made can be listed and undone here, and the other way round.
Exit codes like the other commands: 0 done, 1 failed (nothing to undo, changed since, a broken
journal), 2 usage (no such change).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO, cast

from tray_app.base.errors import MetonaError, NotFound
from tray_app.base.paths import AppPaths
from tray_app.cli.terminal_lines import terminal_text
from tray_app.i18n import written_out
from tray_app.terminal_errors import undo_failure_text
from tray_app.undo_reasons import reason_text

if TYPE_CHECKING:
    from tray_app.core.bootstrap import RunningApp
    from tray_app.core.results import Undone

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    changes = sub.add_parser(
        "changes", help="what the agent changed, newest first, and what can still be undone"
    )
    changes.add_argument("--json", action="store_true", help="print the list as JSON")
    changes.add_argument(
        "--turns", action="store_true", help="list the turns that changed files, newest first"
    )
    undo = sub.add_parser(
        "undo", help="undo one change, or a whole turn's (see `metona-tray changes`)"
    )
    which = undo.add_mutually_exclusive_group(required=True)
    which.add_argument("change", nargs="?", metavar="ID", help="the change's number or id")
    which.add_argument("--last", action="store_true", help="the newest change not undone yet")
    which.add_argument(
        "--turn",
        metavar="TURN",
        help="every change of one turn, newest first: `last` or its id (`changes --turns`)",
    )
    undo.add_argument(
        "--force",
        action="store_true",
        help="with --turn: undo files changed after the turn too, replacing those changes",
    )
    undo.add_argument("--json", action="store_true", help="with --turn: print the outcome as JSON")


def _start(command: str, err: TextIO) -> RunningApp | None:
    from tray_app.core.bootstrap import start_app  # not at import: the parser is built always

    try:
        return start_app(AppPaths.from_env(), persist_settings=False, read_only_ok=True, mcp="off")
    except (OSError, MetonaError) as exc:
        said = terminal_text(_language(), "no_data", why=written_out(exc))
        err.write(f"metona-tray {command}: {said}\n")
        return None


def _why(exc: BaseException) -> str:
    """An exception's text written out; the journal's coded reason in the terminal's language."""
    info = getattr(exc, "reason_info", None)
    if isinstance(info, dict):
        english = written_out(exc)
        return reason_text(info.get("code"), info.get("params"), english, _language(), written_out)
    return written_out(exc)


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def _words() -> Mapping[str, str]:
    """The terminal's words for the change list and an undo (``terminal.changes.*``)."""
    from tray_app.i18n import section

    return section("terminal.changes", _language())


def _language() -> str:
    """The terminal's language; imported here, since `--help` must not load the core."""
    from tray_app.i18n import system_language

    return system_language()


def _status(entry: dict[str, Any]) -> str:
    words = _words()
    if entry["undone"]:
        return words["undone"]
    if entry["undoable"]:
        return words["can"]
    if not entry["reason"]:
        return words["cannot"]
    info = entry.get("reason_info") or {}
    why = reason_text(
        info.get("code"), info.get("params"), str(entry["reason"]), _language(), written_out
    )
    return f"{words['cannot']}: {why}"


def _public(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": entry["seq"],
        "entry_id": entry["id"],
        "call_id": entry["call_id"],
        "time": entry["time"],
        "tool": entry["tool"],
        "path": entry["path"],
        "undoable": entry["undoable"],
        "undone": entry["undone"],
        "reason": entry["reason"],
        "turn_id": entry.get("turn_id"),
        "session_title": entry.get("session_title"),
        "turn_prompt": entry.get("turn_prompt"),
    }


def run_changes(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    app = _start("changes", err)
    if app is None:
        return EXIT_FAILED
    try:
        entries = app.core.changes()
    except (OSError, MetonaError) as exc:
        said = terminal_text(_language(), "no_journal", why=_why(exc))
        err.write(f"metona-tray changes: {said}\n")
        return EXIT_FAILED
    finally:
        app.close()
    if args.turns:
        from tray_app.cli.changes_turns import turn_lines, turns_of

        turns = turns_of(entries)
        if args.json:
            out.write(_json(turns) + "\n")
        else:
            out.write("".join(line + "\n" for line in turn_lines(turns, _language())))
        return EXIT_OK
    if args.json:
        out.write(_json([_public(e) for e in entries]) + "\n")
        return EXIT_OK
    if not entries:
        out.write(_words()["none"] + "\n")
        return EXIT_OK
    width = max(len(str(e["seq"])) for e in entries)
    tools = max(len(e["tool"]) for e in entries)
    for e in entries:
        out.write(
            written_out(
                f"#{e['seq']:<{width}}  {_when(e['time'])}  {e['tool']:<{tools}}  {e['path']}"
                f"  [{_status(e)}]"
            )
            + "\n"
        )
    return EXIT_OK


def _json(listed: object) -> str:
    text = json.dumps(listed, ensure_ascii=False, indent=2)
    if any(row != written_out(row) for row in text.split("\n")):
        # lone surrogates, bidi: JSON's \u escapes keep them exact
        text = json.dumps(listed, indent=2)
    return text


def _undone_line(result: Undone) -> str:
    """What an undo did, in the terminal's language (an action it has no word for as it came)."""
    words = _words()
    action = str(result.get("action") or "undone")
    said = words.get(f"action.{action}", words["undone"] if action == "undone" else action)
    return words["done"].format(action=said, path=result.get("path", ""), tool=result["tool"])


def run_undo(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    if args.turn is not None:
        return _undo_turn(args, out, err)
    app = _start("undo", err)
    if app is None:
        return EXIT_FAILED
    try:
        result = app.core.undo_last() if args.last else app.core.undo_change(str(args.change))
    except (OSError, MetonaError) as exc:
        why = undo_failure_text(exc, _language())
        err.write(written_out(f"metona-tray undo: {why}") + "\n")
        return EXIT_USAGE if isinstance(exc, NotFound) else EXIT_FAILED
    finally:
        app.close()
    out.write(written_out(_undone_line(result)) + "\n")
    if result.get("warning"):
        words = _words()
        reason = result.get("warning_reason")
        said = words["not_recorded"].format(reason=reason) if reason else result["warning"]
        err.write(written_out(words["warning"].format(text=said)) + "\n")
    return EXIT_OK


def _undo_turn(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``undo --turn``: exit 0 when every change was undone, 1 when some were left."""
    from tray_app.cli.changes_turns import undo_report

    app = _start("undo", err)
    if app is None:
        return EXIT_FAILED
    try:
        result = app.core.undo_turn(str(args.turn), force=bool(args.force))
    except (OSError, MetonaError) as exc:
        why = undo_failure_text(exc, _language())
        err.write(written_out(f"metona-tray undo: {why}") + "\n")
        return EXIT_USAGE if isinstance(exc, NotFound) else EXIT_FAILED
    finally:
        app.close()
    left = EXIT_FAILED if result.get("left") else EXIT_OK
    if args.json:
        out.write(_json(result) + "\n")
        return left
    done, kept = undo_report(dict(result), _language(), lambda o: _undone_line(cast(Any, o)))
    out.write("".join(line + "\n" for line in done))
    err.write("".join(line + "\n" for line in kept))
    if result.get("warning"):
        words = _words()
        reason = result.get("warning_reason")
        said = words["not_recorded"].format(reason=reason) if reason else result["warning"]
        err.write(written_out(words["warning"].format(text=said)) + "\n")
    return left
