"""``metona-tray mcp list | import FILE | test NAME | serve``: MCP from the terminal.

``list`` starts the configured servers (bounded wait), prints each one's status and its tools
with the risk they are treated with, and stops them. ``import`` adds a Claude Desktop config's
``mcpServers`` to the settings file. ``test`` starts one server, lists its tools, stops it, and
says what failed (with the end of its log file). Messages in English or Chinese, like the app.
Exit codes: 0 done, 1 failed, 2 usage (no such server, unreadable file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from tray_app.base.paths import AppPaths
from tray_app.cli.mcp_report import EXIT_FAILED, EXIT_OK, EXIT_USAGE, error_words
from tray_app.i18n import section
from tray_app.i18n.section import Section

#: How long `list`/`test` wait for the servers to be started (the SDK loads on the first).
CONFIGURE_WAIT = 60.0
LIST_WAIT = 20.0  # seconds `list` waits for servers still starting


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = sub.add_parser("mcp", help="MCP tool servers: list, import, test")
    actions = mcp.add_subparsers(dest="mcp_command", required=True)
    listing = actions.add_parser("list", help="servers, their status and tools with their risk")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    imports = actions.add_parser("import", help="add a Claude Desktop config's mcpServers")
    imports.add_argument("file", metavar="FILE", help="claude_desktop_config.json or similar")
    test = actions.add_parser("test", help="start one server, list its tools, stop it")
    test.add_argument("name", metavar="NAME", help="the server's name in the settings")
    add_serve_parser(actions)


def add_serve_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = actions.add_parser(
        "serve",
        help="offer this app's tools to another MCP client",
        description="Offer Metona Tray's tools to another MCP client over stdio. While Metona "
        "Tray runs, calls go to it (it asks you in its popup and notifications) and the tools "
        "of the MCP servers it is connected to are offered too, named as it names them "
        "(server__tool). Without it, only the built-in tools are offered.",
    )
    serve.add_argument("--workspace", metavar="DIR", help="folder relative paths resolve against")
    serve.add_argument("--yes", action="store_true", help="approve writes and new folders")
    serve.add_argument(
        "--yes-all", action="store_true", help="approve everything, deletes and commands too"
    )


def _lang(setting: str) -> str:
    from tray_app.i18n import resolve_language

    return resolve_language(setting)


def run_mcp(args: argparse.Namespace, out: TextIO | None = None) -> int:
    from tray_app.store.settings import load_settings

    if args.mcp_command == "serve":
        from tray_app.cli.mcp_serve import run_serve

        return run_serve(args)
    out = out or sys.stdout
    paths = AppPaths.from_env()
    settings = load_settings(paths.settings_file)
    text = section("terminal.mcp", _lang(settings.language))
    if args.mcp_command == "import":
        from tray_app.cli.mcp_import_cli import run_import

        return run_import(Path(args.file), paths, text, out)
    from tray_app.i18n import written_out
    from tray_app.mcp.config import parse_servers

    codes: dict[str, dict[str, Any]] = {}
    servers, errors = parse_servers(settings.mcp_servers, codes)
    if args.mcp_command == "test":
        chosen = [s for s in servers if s.name == args.name]
        if not chosen:
            names = ", ".join(sorted(settings.mcp_servers)) or "-"
            said = text["unknown"].format(name=args.name, names=names)
            print(written_out(said), file=sys.stderr)
            return EXIT_USAGE
        servers = [chosen[0].model_copy(update={"enabled": True})]
    elif not servers and not errors:
        print(text["none"].format(file=paths.settings_file), file=out)
        return EXIT_OK
    rows = [_invalid_row(name, why, codes.get(name)) for name, why in errors.items()]
    return _run_servers(args, servers, rows, settings, paths, text, out)


def _invalid_row(name: str, why: str, coded: dict[str, Any] | None) -> dict[str, Any]:
    """A server the rules refuse, as ``list`` shows it (a refused name with its code)."""
    row: dict[str, Any] = {"name": name, "status": "invalid", "error": why, "tools": []}
    if coded is not None:
        row["error_code"], row["error_params"] = coded["code"], coded["params"]
    return row


def _tool_row(tool: Any, config: Any) -> dict[str, Any]:
    """A tool as listed: the risk it is treated with, whether it asks although the server says
    it only reads, and whether the user switched it off in Settings."""
    from tray_app.mcp.naming import risk_of

    risk, asks_though_read_only = risk_of(tool.annotations, config.trust)
    return {
        "name": tool.name,
        "risk": risk.value,
        "read_only_asks": asks_though_read_only,
        "switched_off": tool.name in config.disabled_tools,
    }


def _tool_line(tool: dict[str, Any], text: Section) -> str:
    key = "risk.read_asks" if tool.get("read_only_asks") else f"risk.{tool['risk']}"
    line = text["tool"].format(risk=text.get(key, tool["risk"]), name=tool["name"])
    return line + (" " + text["switched_off"] if tool.get("switched_off") else "")


def _run_servers(
    args: argparse.Namespace,
    servers: list[Any],
    invalid: list[dict[str, Any]],
    settings: Any,
    paths: AppPaths,
    text: Section,
    out: TextIO,
) -> int:
    from tray_app.mcp.manager import McpManager

    secrets = _secret_lookup()
    manager = McpManager(
        log_dir=paths.log_dir,
        secrets=secrets,
        roots=lambda: list(settings.allowed_dirs),
        sandbox=lambda: bool(settings.sandbox_enabled),
        private_root=paths.cache_dir / "mcp",
    )
    try:
        try:
            manager.configure(servers, wait=True, timeout=CONFIGURE_WAIT)
        except TimeoutError:
            print(text["slow"].format(seconds=CONFIGURE_WAIT, folder=paths.log_dir), file=out)
            return EXIT_FAILED
        for server in servers:
            if server.enabled:
                manager.wait_ready(server.name, min(server.timeout_s, LIST_WAIT))
        states = manager.snapshot()
    finally:
        manager.stop()
    rows: list[dict[str, Any]] = []
    for state in states:
        config = next(s for s in servers if s.name == state.name)
        rows.append(
            {
                **state.public(),
                "trust": config.trust,
                "tools": [_tool_row(t, config) for t in state.tools],
            }
        )
    rows.extend(invalid)
    if args.mcp_command == "test":
        return _report_test(rows[0], servers[0], paths, text, out)
    if getattr(args, "json", False):
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
    else:
        for row in rows:
            _print_row(row, text, out, next((s for s in servers if s.name == row["name"]), None))
    return EXIT_OK if all(r["status"] in ("ready", "disabled") for r in rows) else EXIT_FAILED


def _print_row(row: dict[str, Any], text: Section, out: TextIO, config: Any) -> None:
    """One server and its tools; its name, tools and error written out (``⟨U+202E⟩``): a
    server's answers and the user's config are not the terminal's to obey."""
    from tray_app.i18n import written_out

    status = text["disabled"] if row["status"] == "disabled" else row["status"]
    status = text.get(f"status.{status}", status)
    line = text["server"].format(
        name=row["name"],
        transport=row.get("transport", "?"),
        status=status,
        trust=row.get("trust", "-"),
    )
    print(written_out(line), file=out)
    if row.get("error"):
        print(written_out(text["error"].format(error=error_words(row, text, config))), file=out)
    for tool in row["tools"]:
        print(written_out(_tool_line(tool, text)), file=out)
    if row["status"] == "ready" and not row["tools"]:
        print(text["no_tools"], file=out)


def _report_test(
    row: dict[str, Any], server: Any, paths: AppPaths, text: Section, out: TextIO
) -> int:
    from tray_app.i18n import written_out
    from tray_app.terminal_errors import answer_for_terminal

    if row["status"] == "ready":
        print(written_out(text["ok"].format(name=row["name"], count=len(row["tools"]))), file=out)
        for tool in row["tools"]:
            print(written_out(_tool_line(tool, text)), file=out)
        return EXIT_OK
    error = error_words(row, text, server) if row.get("error") else row["status"]
    seconds = min(server.timeout_s, LIST_WAIT)
    said = text["timeout"] if row["status"] == "starting" else text["failed"]
    print(written_out(said.format(name=row["name"], seconds=seconds, error=error)), file=out)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in row["name"])
    log_file = paths.log_dir / f"mcp-{safe}.log"
    if log_file.exists():
        lines = log_file.read_text(encoding="utf-8", errors="replace").splitlines()[-10:]
        print(written_out(text["log"].format(file=log_file)), file=out)
        for line in lines:  # the server's own output: no escape sequence reaches the terminal
            print(f"  {answer_for_terminal(line[:300])}", file=out)
    return EXIT_FAILED


def _secret_lookup() -> Any:
    """The keyring, opened only when a server's config refers to it."""
    store: list[Any] = []

    def lookup(name: str) -> str | None:
        from tray_app.mcp.config import SecretUnavailable
        from tray_app.store.secrets import SecretStore, SecretUnreadable

        if not store:
            store.append(SecretStore())
        try:  # without a prompt, a few seconds at most: a terminal never hangs on it
            value = store[0].read(name)
        except SecretUnreadable as exc:
            raise SecretUnavailable(str(exc) or "no usable keyring") from None
        return value if isinstance(value, str) else None

    return lookup
