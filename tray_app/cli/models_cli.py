"""``metona-tray models check NAME``: how a model calls tools, found out and remembered.

It sends the model one small tool request (``core.model_check``) and reports what came back:
a structured call (native), a call written in the text (via text: the app then describes the
tools in the prompt), or none (tools off for it). The finding and the mode it implies are
kept in the settings (through the running app when there is one, else in the file), so the app
and ``metona-tray chat`` use that mode from then on. Words in English or Chinese, like
the app; ``--json`` prints one object. Exit codes: 0 checked, 1 failed (server, model, file).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from tray_app.base.paths import AppPaths
    from tray_app.core.model_check import CheckFinding
    from tray_app.store.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    models = sub.add_parser("models", help="what the installed models can do")
    actions = models.add_subparsers(dest="models_command", required=True)
    check = actions.add_parser(
        "check", help="send a model one small tool request; remember how it calls tools"
    )
    check.add_argument("name", metavar="NAME", help="the model, as the server names it")
    check.add_argument("--json", action="store_true", help="print the finding as JSON")
    check.add_argument("--endpoint", help="server URL (default: from settings)")
    check.add_argument("--provider", choices=["ollama", "openai"], help="server kind")


def _language() -> str:
    from tray_app.i18n import system_language

    return system_language()


def _settings(args: argparse.Namespace, paths: AppPaths) -> Settings:
    """The settings file with this run's server flags on top (those are never saved)."""
    from tray_app.store.settings import Settings, load_settings

    settings = load_settings(paths.settings_file)
    patch: dict[str, Any] = {}
    if args.endpoint:
        patch["endpoint"] = args.endpoint
    if args.provider:
        patch["provider"] = args.provider
    return Settings.model_validate({**settings.model_dump(), **patch})


async def _check(settings: Settings, name: str, language: str) -> CheckFinding:
    from tray_app.core.model_check import check_model_tools
    from tray_app.core.model_service import default_provider_factory
    from tray_app.core.settings_service import Secrets
    from tray_app.store.secrets import SecretStore

    # the keyring is opened only for an OpenAI-compatible server whose key was stored there
    provider = default_provider_factory(settings, Secrets(SecretStore).api_key)
    try:
        return await check_model_tools(provider, name, settings, language)
    finally:
        await provider.aclose()


def _store(paths: AppPaths, name: str, finding: CheckFinding) -> str:
    """Keep the finding: through the running app when there is one (it saves its settings
    from memory, so a file written here would be overwritten at its next save), else in the
    settings file as it is now. The mode it put the model in."""
    from tray_app.agent.tool_modes import model_key
    from tray_app.core.model_check import stored_finding
    from tray_app.store.settings import load_settings, save_settings

    instance = _running(paths)
    if instance is not None:
        request = {
            "command": "model_tool_check",
            "model": name,
            "result": finding.result,
            "native_offered": finding.native_offered,
        }
        reply = instance.send(request, timeout=60)
        if not reply.get("ok"):
            raise RuntimeError(str(reply.get("error") or "the app did not answer"))
        return str(reply["patch"]["model_tool_modes"][model_key(name)])
    current = load_settings(paths.settings_file)
    patch = stored_finding(current, name, finding)
    save_settings(current.model_copy(update=patch), paths.settings_file)
    return str(patch["model_tool_modes"][model_key(name)])


def _running(paths: AppPaths) -> Any:
    """The running app's instance to talk to, or None (as ``rules_cli`` finds it)."""
    from tray_app.desktop.instance.instance import SingleInstance

    instance = SingleInstance(paths.runtime_dir)
    if not instance.lock_path.exists():
        return None
    if instance.acquire():  # nobody holds it
        instance.release()
        return None
    return instance


def run_models(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    import asyncio  # here: ``--help`` must not load it (it loads ssl)

    from pydantic import ValidationError

    from tray_app.base.errors import MetonaError
    from tray_app.base.paths import AppPaths
    from tray_app.i18n import written_out

    out = out or sys.stdout
    err = err or sys.stderr
    language = _language()
    from tray_app.i18n import section

    text = section("terminal.models", language)
    paths = AppPaths.from_env()
    name = args.name.strip()
    try:
        settings = _settings(args, paths)
    except ValidationError as exc:
        why = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        err.write(text["failed"].format(why=written_out(why)) + "\n")
        return EXIT_USAGE
    shown = written_out(name)
    if not args.json:
        err.write(text["checking"].format(model=shown) + "\n")
    try:
        finding = asyncio.run(_check(settings, name, language))
    except MetonaError as exc:
        if args.json:  # one object either way: the reason in the server's words
            row = {"model": name, "result": None, "tool_mode": None, "stored": False}
            out.write(json.dumps({**row, "error": str(exc)}, ensure_ascii=False) + "\n")
        err.write(text["failed"].format(why=written_out(str(exc))) + "\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    file = written_out(str(paths.settings_file))
    try:
        mode: str | None = _store(paths, name, finding)
        problem = None
    except (MetonaError, OSError, RuntimeError) as exc:  # not saved, or the app did not answer
        mode, problem = None, written_out(str(exc))
    if args.json:
        row = {
            "model": name,
            "result": finding.result,
            "tool_mode": mode,
            "stored": problem is None,
            "error": problem,
        }
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        out.write(text[f"result.{finding.result}"].format(model=shown) + "\n")
        if problem is None:
            out.write(text["stored"].format(file=file) + "\n")
    if problem is not None:
        err.write(text["not_stored"].format(file=file, why=problem) + "\n")
        return EXIT_FAILED
    return EXIT_OK
