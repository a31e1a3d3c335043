"""Terminal mode: the same agent loop as the popup, with the terminal as its consumer.

The core runs on its own thread; this thread drains the event bus, prints the stream and tool
cards, and answers approvals at the prompt (or by ``--yes``/``--yes-all``, or denies when there
is no terminal to ask).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from tray_app.base.errors import InvalidRequest, NotFound, SandboxViolation, StoreError, UndoFailed
from tray_app.base.events import (
    ApprovalNeeded,
    Event,
    McpStatus,
    TurnFailed,
    TurnFinished,
)
from tray_app.base.messages import read_preview
from tray_app.base.paths import AppPaths
from tray_app.cli.terminal_lines import terminal_text
from tray_app.cli.terminal_preview import approval_prompt
from tray_app.cli.terminal_render import TextRenderer, approval_text, guard_lines
from tray_app.core.bootstrap import RunningApp, start_app
from tray_app.core.protocol import CoreApi
from tray_app.history_warnings import problem_of, problem_text, warning_text
from tray_app.i18n import section, system_language, translation, written_out
from tray_app.os_reasons import os_params, os_reason_text
from tray_app.store.settings import Settings, load_settings
from tray_app.terminal_errors import undo_failure_text
from tray_app.tools.tool_rules import Action

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    pass


def settings_for(args: argparse.Namespace, paths: AppPaths) -> Settings:
    """Settings from the file, with this run's flags on top (never saved)."""
    settings = load_settings(paths.settings_file)
    patch: dict[str, Any] = {}
    if getattr(args, "endpoint", None):
        patch["endpoint"] = args.endpoint
    if getattr(args, "provider", None):
        patch["provider"] = args.provider
    if getattr(args, "model", None):
        patch["default_model"] = args.model
    if getattr(args, "no_tools", False):
        patch["tools_enabled"] = False
    if getattr(args, "think", None) is not None:
        patch["think"] = args.think
    if getattr(args, "max_rounds", None) is not None:
        patch["max_rounds"] = args.max_rounds
    workspace = getattr(args, "workspace", None)
    if workspace:
        # Naming a folder on the command line is the user's grant to work in it.
        folder = Path(workspace).expanduser().resolve()
        if not folder.is_dir():
            said = terminal_text(system_language(), "not_folder", path=written_out(workspace))
            raise UsageError(said)
        patch["allowed_dirs"] = [str(folder), *settings.allowed_dirs]
    try:
        return Settings.model_validate({**settings.model_dump(), **patch})
    except ValidationError as exc:
        raise UsageError(_option_error(exc, system_language())) from None


# Settings fields a chat flag sets, so a refused value is reported under the flag's name.
_FLAG_OF_FIELD = {
    "endpoint": "--endpoint",
    "provider": "--provider",
    "default_model": "--model",
    "max_rounds": "--max-rounds",
    "allowed_dirs": "--workspace",
    "think": "--think",
}


def _option_error(exc: ValidationError, language: str) -> str:
    """``--endpoint: the endpoint must start with http:// or https://, not “ftp://x”`` in the
    terminal's language, never pydantic's link; the value and any other cause written out."""
    parts = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else ""
        if field == "endpoint" and error["type"] == "value_error":
            said = terminal_text(language, "bad_endpoint", value=written_out(error["input"]))
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
            said = terminal_text(language, "bad_option", why=written_out(message))
        flag = _FLAG_OF_FIELD.get(field, field)
        parts.append(terminal_text(language, "option_error", flag=flag, said=said))
    return terminal_text(language, "clause_separator").join(parts) or terminal_text(
        language, "bad_option", why="?"
    )


def absolute_workspace(args: argparse.Namespace) -> None:
    """A relative ``--workspace`` means relative to the folder the command runs in."""
    if getattr(args, "workspace", None):
        args.workspace = os.path.abspath(os.path.expanduser(args.workspace))


class ChatRunner:
    def __init__(self, core: CoreApi, args: argparse.Namespace, out: TextIO, err: TextIO) -> None:
        self.core = core
        self.args = args
        self.out = out
        self.err = err
        self.json = bool(args.json)
        self.renderer = TextRenderer(out, err)
        self.interactive_terminal = sys.stdin.isatty()

    def decide(self, event: ApprovalNeeded) -> None:
        facts = read_preview(event.preview)
        # A file that runs something later (login, VS Code, git hooks) is always asked about,
        # even under --yes-all; a write that replaces a file is a delete for --yes.
        # Past a damage budget, or a target that changed after approval, is asked
        # like a persistence location: the flags do not answer it.
        persistent = facts.persistence is not None
        guarded = guard_lines(facts, "en")
        if self.args.yes_all and not persistent and not guarded:
            self._decide(event.call_id, True)
            return
        auto_write = event.risk == "write" and not facts.deletes
        if self.args.yes and auto_write and not persistent and not guarded:
            self._decide(event.call_id, True)
            return
        if not self.interactive_terminal:
            self.err.write(self._no_terminal(event.name, facts) + "\n")
            self._decide(event.call_id, False)
            return
        self.err.write(approval_text(event, self.renderer.language))
        prompt = approval_prompt(
            event.name,
            event.can_remember,
            self.renderer.language,
            rules=True,
            rule_folder=event.rule_folder,
        )
        self.err.write(prompt)
        self.err.flush()
        answer = sys.stdin.readline().strip().lower()
        approve = answer in ("y", "yes", "a", "always")
        remember = answer == "a" and event.can_remember
        rule = answer in ("always", "never")
        self._decide(event.call_id, approve, remember=remember, rule=rule)
        if rule:
            self._keep_rule(event.name, event.rule_folder, "allow" if approve else "deny")

    def _keep_rule(self, tool: str, folder: str | None, action: Action) -> None:
        """Save a rule typed at the prompt where it lasts: the running app if there is one,
        else the settings file (this chat's own settings are not saved; Core applies the rule
        to the rest of it all the same)."""
        from tray_app.cli.rules_cli import RuleStore, words
        from tray_app.tools.tool_rules import new_rule

        made = new_rule(tool, folder, action)
        try:
            store = RuleStore(AppPaths.from_env())
            rules, _servers = store.read()
            same = [r for r in rules if isinstance(r, dict) and r.get("tool") == tool]
            kept = [r for r in rules if not (r in same and r.get("folder") == folder)]
            store.write([*kept, made])
        except Exception as exc:  # not saved: this chat still has it
            why = words(self.renderer.language, "rules.not_saved", why=written_out(exc))
            self.err.write(why + "\n")

    def _no_terminal(self, name: str, facts: Any) -> str:
        """Why a call is denied with no terminal to ask, in the terminal's language."""
        lang = self.renderer.language
        if facts.persistence is not None:
            texts = section("terminal.persistence", lang)
            risk = texts.get(facts.persistence.code) or facts.persistence.text or texts["other"]
            why = terminal_text(lang, "persistent", risk=risk)
        elif guard_lines(facts, lang):
            joiner = terminal_text(lang, "clause_separator")
            why = terminal_text(lang, "guarded", lines=joiner.join(guard_lines(facts, lang)))
        else:
            why = terminal_text(lang, "flags")
        return terminal_text(lang, "line", name=name, why=why)

    def _decide(
        self, call_id: str, approve: bool, *, remember: bool = False, rule: bool = False
    ) -> None:
        """The call may have stopped waiting meanwhile (timed out, turn stopped): that is fine.
        ``rule``: the answer is kept as a lasting rule ("always" / "never")."""
        try:
            self.core.decide(call_id, approve, remember=remember, by="terminal", rule=rule)
        except NotFound:
            self.err.write(terminal_text(self.renderer.language, "gone") + "\n")

    def emit(self, event: Event) -> None:
        if isinstance(event, McpStatus):
            return  # for Settings' live list; `mcp list` shows it here
        if self.json:
            self.out.write(event.model_dump_json() + "\n")
            self.out.flush()
        else:
            self.renderer.render(event)

    def run_turn(self, session_id: str, text: str) -> int:
        """Send one message and follow its turn to the end; returns an exit code."""
        with self.core.bus.subscribe(
            lambda e: getattr(e, "session_id", session_id) == session_id
        ) as sub:
            try:
                turn_id = self.core.send_message(session_id, text)["turn_id"]
            except StoreError as exc:  # the message could not be stored: said, not a traceback
                problem = problem_of(exc)
                language = self.renderer.language
                said = problem_text(problem, language, written_out) if problem else str(exc)
                self.err.write(f"metona-tray chat: {written_out(said)}\n")
                return EXIT_FAILED
            aborting = False
            while True:
                try:
                    event = sub.get(timeout=0.5)
                except KeyboardInterrupt:
                    if aborting:
                        raise
                    aborting = True
                    self.err.write("\n" + terminal_text(self.renderer.language, "stopping") + "\n")
                    self.core.abort(session_id)
                    continue
                if event is None:
                    continue
                self.emit(event)
                if isinstance(event, ApprovalNeeded):
                    self.decide(event)
                elif isinstance(event, TurnFailed) and event.turn_id == turn_id:
                    return EXIT_FAILED
                elif isinstance(event, TurnFinished) and event.turn_id == turn_id:
                    if event.stop_reason == "aborted":
                        return EXIT_INTERRUPTED
                    return EXIT_OK


def run_chat(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    absolute_workspace(args)
    paths = AppPaths.from_env()
    try:
        settings = settings_for(args, paths)
    except UsageError as exc:
        err.write(f"metona-tray chat: {exc}\n")
        return EXIT_USAGE
    app = start_app(paths, settings=settings, persist_settings=False, mcp="first_turn")
    core = app.core
    if core.history_warning:
        err.write(history_line(core.history_warning) + "\n")
    runner = ChatRunner(core, args, out, err)
    try:
        if args.session and app.history == "off":
            said = terminal_text(runner.renderer.language, "no_continue", name=args.session)
            err.write(f"metona-tray chat: {written_out(said)}\n")
            return EXIT_FAILED
        if args.session:
            try:
                session_id = core.get_session(args.session)["session"]["id"]
            except NotFound:
                missing = terminal_text(runner.renderer.language, "no_chat", name=args.session)
                err.write(f"metona-tray chat: {written_out(missing)}\n")
                return EXIT_USAGE
        else:
            try:
                session_id = core.new_session(workspace=args.workspace)["id"]
            except (SandboxViolation, InvalidRequest) as exc:
                err.write(f"metona-tray chat: --workspace: {exc}\n")
                return EXIT_USAGE
        prompt = " ".join(args.prompt).strip()
        if prompt:
            return runner.run_turn(session_id, prompt)
        return interactive(runner, session_id)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        app.close()
        if app.unsaved_sessions():
            err.write(terminal_text(runner.renderer.language, "unsaved") + "\n")


def export_to(core: CoreApi, session_id: str, target: str, language: str = "en") -> str:
    """``/export FILE``: the chat as JSON (``.json``) or Markdown, also when it is unsaved."""
    fmt = "json" if target.lower().endswith(".json") else "markdown"
    data = core.export_session(session_id, fmt=fmt)["data"]
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=2)
    path = Path(target).expanduser()
    try:
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        why = os_reason_text(os_params(exc), language, written_out)
        return terminal_text(language, "cannot_write", path=written_out(path), why=why)
    return terminal_text(language, "exported", path=written_out(path.absolute()))


def interactive(runner: ChatRunner, session_id: str) -> int:
    err = runner.err
    language = runner.renderer.language
    err.write(terminal_text(language, "banner") + "\n")
    code = EXIT_OK
    while True:
        err.write("\n> ")
        err.flush()
        try:
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            return code
        if not line:
            return code
        text = line.strip()
        if not text:
            continue
        if text in ("/exit", "/quit"):
            return code
        if text == "/new":
            session_id = runner.core.new_session(workspace=runner.args.workspace)["id"]
            continue
        if text.startswith("/export"):
            target = text[len("/export") :].strip()
            err.write(
                (export_to(runner.core, session_id, target, language) if target else "/export FILE")
                + "\n"
            )
            continue
        if text == "/undo":
            try:
                result = runner.core.undo_last()
            except (UndoFailed, NotFound) as exc:
                err.write(undo_failure_text(exc, runner.renderer.language) + "\n")
                continue
            if translation("terminal.undone", language) is not None:
                path = written_out(result.get("path") or "")
                err.write(terminal_text(language, "undone", path=path) + "\n")
            else:
                err.write(written_out(json.dumps(result, ensure_ascii=False)) + "\n")
            continue
        code = runner.run_turn(session_id, text)


def history_line(warning: str) -> str:
    """``warning: History is off: ...`` in the terminal's language."""
    language = system_language()
    return terminal_text(language, "warning", text=warning_text(warning, language, written_out))


def open_for_reading(command: str) -> RunningApp | None:
    """The app for a command that only reads history; None (after one line) if there is none."""
    app = start_app(AppPaths.from_env(), persist_settings=False, read_only_ok=True, mcp="off")
    if app.history == "off":
        said = warning_text(app.core.history_warning, system_language(), written_out)
        print(f"metona-tray {command}: {said}", file=sys.stderr)
        app.close()
        return None
    if app.core.history_warning:
        print(history_line(app.core.history_warning), file=sys.stderr)
    return app


def run_sessions(args: argparse.Namespace) -> int:
    app = open_for_reading("sessions")
    if app is None:
        return EXIT_FAILED
    try:
        found = app.core.search_sessions(args.query)
    finally:
        app.close()
    for session in found:
        title = session["title"] or terminal_text(system_language(), "untitled")
        row = f"{session['id']}  {title}  {session['model']}"
        sys.stdout.write(written_out(row) + "\n")  # a title is the model's or a user's text
    return EXIT_OK


def run_export(args: argparse.Namespace) -> int:
    """A stored chat as Markdown (to read or share) or JSON (complete, re-importable)."""
    app = open_for_reading("export")
    if app is None:
        return EXIT_FAILED
    try:
        try:
            exported = app.core.export_session(args.session, fmt=args.format)
        except NotFound:
            missing = terminal_text(system_language(), "no_chat", name=args.session)
            print(f"metona-tray export: {written_out(missing)}", file=sys.stderr)
            return EXIT_USAGE
    finally:
        app.close()
    data = exported["data"]
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=2)
    text = text if text.endswith("\n") else text + "\n"
    if not args.output:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        language = system_language()
        why = os_reason_text(os_params(exc), language, written_out)
        said = terminal_text(language, "cannot_write", path=written_out(args.output), why=why)
        print(f"metona-tray export: {said}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
