"""The ``metona-tray`` command: the desktop app (default), ``chat``, ``doctor``, ``models``,
``--toggle``, ``--self-test``."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from tray_app import __version__

if TYPE_CHECKING:  # argparse is imported where a parser is built: ``--toggle`` needs none
    import argparse

    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

NO_DISPLAY_HELP = """\
metona-tray: no graphical display found, so the tray app cannot start here.

Use the terminal mode instead, with the same agent, tools and approvals:
  {cmd} chat "list the files in my workspace"      one question
  {cmd} chat                                       an interactive chat
  {cmd} chat --help                                every option
  {cmd} doctor                                     check Ollama and the set-up
"""


def command_name() -> str:
    """How to type this command here: its bare name when on PATH, else the path it ran from."""
    import shutil

    invoked = sys.argv[0] if sys.argv and sys.argv[0] else "metona-tray"
    if os.path.basename(invoked) != "metona-tray" or shutil.which("metona-tray"):
        return "metona-tray"
    return invoked


def _chat_parser(sub: SubParsers) -> None:
    chat = sub.add_parser("chat", help="chat in the terminal (no PROMPT: interactive)")
    chat.add_argument("prompt", nargs="*", help="the message to send; omit for a chat session")
    chat.add_argument("--model", help="model name, e.g. qwen3:8b (default: from settings)")
    chat.add_argument("--endpoint", help="server URL (default: from settings, Ollama on 11434)")
    chat.add_argument("--provider", choices=["ollama", "openai"], help="server kind")
    chat.add_argument("--workspace", metavar="DIR", help="folder relative paths resolve against")
    chat.add_argument("--session", metavar="ID", help="continue a stored chat")
    chat.add_argument("--yes", action="store_true", help="approve writes and new folders")
    chat.add_argument(
        "--yes-all", action="store_true", help="approve everything, deletes and commands too"
    )
    chat.add_argument("--json", action="store_true", help="print every event as a JSON line")
    chat.add_argument("--no-tools", action="store_true", help="plain chat, no file tools")
    think = chat.add_mutually_exclusive_group()
    think.add_argument("--think", dest="think", action="store_true", default=None)
    think.add_argument("--no-think", dest="think", action="store_false")
    chat.add_argument(
        "--max-rounds",
        type=bounded_int("max_rounds"),
        metavar="N",
        help="tool-call rounds per message",
    )


def bounded_int(field: str) -> Callable[[str], int]:
    """An argparse type for an int setting: the message names the range the setting accepts,
    in the terminal's language, with the typed value written out (it may hold anything)."""

    import argparse

    def parse(text: str) -> int:
        from tray_app.cli.terminal_lines import terminal_text
        from tray_app.i18n import system_language, written_out
        from tray_app.store.settings import int_bounds

        low, high = int_bounds(field)
        language = system_language()
        try:
            value = int(text)
        except ValueError:
            said = terminal_text(language, "not_whole", low=low, high=high, value=written_out(text))
            raise argparse.ArgumentTypeError(said) from None
        if not low <= value <= high:
            said = terminal_text(language, "out_of_range", low=low, high=high, value=value)
            raise argparse.ArgumentTypeError(said)
        return value

    return parse


def _doctor_parser(sub: SubParsers) -> None:
    doctor = sub.add_parser("doctor", help="check the model server and the desktop set-up")
    doctor.add_argument("--json", action="store_true", help="machine-readable report")
    doctor.add_argument("--endpoint", help="server URL to check (default: from settings)")


def _sessions_parser(sub: SubParsers) -> None:
    sessions = sub.add_parser("sessions", help="list stored chats")
    sessions.add_argument("query", nargs="?", help="only chats whose title or text matches")


def _export_parser(sub: SubParsers) -> None:
    export = sub.add_parser("export", help="write a stored chat as Markdown or JSON")
    export.add_argument("session", metavar="ID", help="the chat's id (see `metona-tray sessions`)")
    export.add_argument("--format", choices=["markdown", "json"], default="markdown")
    export.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")


def _changes_parsers(sub: SubParsers) -> None:
    from tray_app.cli.changes_cli import add_parsers

    add_parsers(sub)


def _mcp_parsers(sub: SubParsers) -> None:
    from tray_app.cli.mcp_cli import add_parsers

    add_parsers(sub)


def _rules_parser(sub: SubParsers) -> None:
    from tray_app.cli.rules_cli import add_parsers

    add_parsers(sub)


def _models_parsers(sub: SubParsers) -> None:
    from tray_app.cli.models_cli import add_parsers

    add_parsers(sub)


# Each command's parser, in the order ``--help`` lists them ("changes" adds "undo" too).
SUBCOMMANDS: dict[str, Callable[[SubParsers], None]] = {
    "chat": _chat_parser,
    "doctor": _doctor_parser,
    "sessions": _sessions_parser,
    "export": _export_parser,
    "changes": _changes_parsers,
    "undo": _changes_parsers,
    "mcp": _mcp_parsers,
    "rules": _rules_parser,
    "models": _models_parsers,
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``command`` only that command's: ``metona-tray chat ...``
    parses the same either way, and a one-shot chat need not build (and import) the other
    commands' parsers."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="metona-tray",
        description="A tray chat with a local model that works on your files, with approval.",
    )
    parser.add_argument("--version", action="version", version=f"metona-tray {__version__}")
    parser.add_argument(
        "--toggle", action="store_true", help="show or hide the running app's popup"
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="check that this installation is whole (in a temporary folder) and exit",
    )
    sub = parser.add_subparsers(dest="command")
    if command in SUBCOMMANDS:
        SUBCOMMANDS[command](sub)
    else:
        for add in dict.fromkeys(SUBCOMMANDS.values()):
            add(sub)
    return parser


def has_display() -> bool:
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_desktop(toggle: bool) -> int:
    if not has_display():
        print(NO_DISPLAY_HELP.format(cmd=command_name()), file=sys.stderr)
        return 1
    forwarded = forward_to_running_app(toggle)
    if forwarded is not None:
        return forwarded
    try:
        from tray_app.desktop.app import main as desktop_main
    except ImportError as exc:
        print(
            f"metona-tray: the desktop app is not available ({exc}).\n"
            "Install the desktop extras with `make run`, or use the terminal mode:\n"
            '  metona-tray chat "your question"',
            file=sys.stderr,
        )
        return 1
    return int(desktop_main(toggle=toggle))


def forward_to_running_app(toggle: bool) -> int | None:
    """A second launch or ``--toggle`` only talks to the running app over its instance socket,
    importing nothing of the core or the GUI (~0.05 s instead of ~0.4 s). None: none runs."""
    from tray_app.base.runtime_dir import runtime_dir
    from tray_app.desktop.instance.instance import InstanceError, forward_if_running

    try:
        return forward_if_running(runtime_dir(), "toggle" if toggle else "show")
    except (InstanceError, OSError):
        return None  # the app's own start reports what is wrong with the runtime folder


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given in ([], ["--toggle"]):  # the launch the hotkey and the autostart use: no parser
        return run_desktop(toggle=bool(given))
    parser = build_parser(given[0] if given else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return dispatch(args)
    except BrokenPipeError:
        # The reader went away (`... | head -1`): end quietly, like any Unix filter. The
        # command's own clean-up (stopping the turn, closing the store) already ran.
        from tray_app.cli.quick_exit import EXIT_BROKEN_PIPE

        silence_stdout()
        return EXIT_BROKEN_PIPE


def run() -> NoReturn:
    """The process's entry (``metona-tray``, ``python -m tray_app``, the bundle): ``main``; a
    terminal command then ends without the interpreter's teardown (``quick_exit``)."""
    code = main()
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):  # ``--toggle``: nothing more
        from tray_app.cli.quick_exit import QUICK_COMMANDS, end_process

        if sys.argv[1] in QUICK_COMMANDS:
            end_process(code)
    raise SystemExit(code)


def silence_stdout() -> None:
    """Point stdout at the null device so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (embedded, tests): nothing to flush
        pass


def dispatch(args: argparse.Namespace) -> int:
    if args.self_test:
        from tray_app.self_test import run_self_test

        return run_self_test(display=has_display())
    if args.command == "chat":
        from tray_app.cli.terminal import run_chat

        return run_chat(args)
    if args.command == "doctor":
        from tray_app.cli.doctor import run_doctor

        return run_doctor(args)
    if args.command == "sessions":
        from tray_app.cli.terminal import run_sessions

        return run_sessions(args)
    if args.command == "export":
        from tray_app.cli.terminal import run_export

        return run_export(args)
    if args.command == "rules":
        from tray_app.cli.rules_cli import run_rules

        return run_rules(args)
    if args.command == "mcp":
        from tray_app.cli.mcp_cli import run_mcp

        return run_mcp(args)
    if args.command == "models":
        from tray_app.cli.models_cli import run_models

        return run_models(args)
    if args.command in ("changes", "undo"):
        from tray_app.cli import changes_cli

        return (
            changes_cli.run_changes(args)
            if args.command == "changes"
            else changes_cli.run_undo(args)
        )
    return run_desktop(args.toggle)


if __name__ == "__main__":
    run()
