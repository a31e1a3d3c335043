"""``metona-tray doctor``: what works on this machine and how to fix what does not."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from tray_app.base.errors import ProviderError, error_code
from tray_app.base.paths import AppPaths
from tray_app.cli.doctor_lines import (
    doctor_line,
    keyring_cause,
    name_word,
    server_error,
    value_words,
)
from tray_app.i18n import system_language, written_out
from tray_app.providers.factory import make_provider
from tray_app.store.keyring_reasons import keyring_causes
from tray_app.store.secrets import SecretStore
from tray_app.store.settings import Settings, load_settings


async def check_server(
    kind: str, endpoint: str, settings: Settings | None = None
) -> dict[str, Any]:
    """The server's version and models, each with its capabilities and how it is offered the
    tools under ``settings`` (``tool_mode``: native, prompt or off)."""
    from tray_app.agent.tool_modes import tool_mode

    settings = settings if settings is not None else Settings()
    provider = make_provider(kind, endpoint)
    report: dict[str, Any] = {"endpoint": endpoint, "kind": kind}
    try:
        report["version"] = await provider.version()
        report["reachable"] = True
        models = []
        for model in await provider.list_models():
            mode: str | None = None
            try:
                info = await provider.model_info(model.name)
                caps = info.capabilities
                mode = tool_mode(info, settings).mode
            except ProviderError as exc:
                caps = [f"unknown ({exc})"]
            models.append({"name": model.name, "capabilities": caps, "tool_mode": mode})
        report["models"] = models
        if not models:
            report["hint"] = "No model installed. Pull one: ollama pull qwen3:8b"
    except ProviderError as exc:
        report["reachable"] = False
        report["error"] = str(exc)
        report["error_code"] = error_code(exc)  # so the lines can say the cause in Chinese
    finally:
        await provider.aclose()
    return report


def gather(endpoint: str | None) -> dict[str, Any]:
    paths = AppPaths.from_env()
    settings = load_settings(paths.settings_file)
    server = asyncio.run(check_server(settings.provider, endpoint or settings.endpoint, settings))
    report: dict[str, Any] = {
        "server": server,
        "paths": {
            "config": str(paths.config_dir),
            "data": str(paths.data_dir),
            "logs": str(paths.log_dir),
            "settings_file": str(paths.settings_file),
        },
        "python": sys.version.split()[0],
    }
    secrets = SecretStore()
    state = secrets.keyring_state()  # looked at without a prompt, a few seconds at most
    report["keyring"] = {
        "usable": secrets.usable,
        "backend": secrets.backend_name,
        "reason": secrets.reason,
        "locked": None if state is None else state == "locked",
        "state": state,
        "problem": secrets.problem,
        "causes": keyring_causes(secrets),
    }
    report["rules"] = rules_report(settings.tool_rules, settings.mcp_servers)
    try:
        from tray_app.desktop.checks import desktop_report

        report["desktop"] = desktop_report(settings.hotkey, paths.runtime_dir)
    except ImportError:
        report["desktop"] = {"available": False, "reason": "desktop extras not installed"}
    return report


def print_report(report: dict[str, Any], language: str = "en") -> None:
    """The report as lines in ``language``; what a server or the system said, written out."""

    def line(status: str, key: str, **fields: object) -> None:
        print(f"{doctor_line(language, status)} {doctor_line(language, key, **fields)}")

    server = report["server"]
    heading = doctor_line(language, "server", kind=server["kind"], endpoint=server["endpoint"])
    if server.get("reachable"):
        version = doctor_line(language, "version", version=server.get("version"))
        print(f"{doctor_line(language, 'ok')} {heading}{version}")
        for model in server.get("models", []):
            caps = ", ".join(_capability(cap, language) for cap in model["capabilities"])
            mode = model.get("tool_mode")
            if mode in ("prompt", "off"):  # native: the tools capability already says it
                caps += doctor_line(language, f"tool_mode_{mode}")
            print(f"       - {written_out(model['name'])}: {caps}")
        if server.get("hint"):
            print(f"       {doctor_line(language, 'no_models')}")
    else:
        print(f"{doctor_line(language, 'fail')} {heading}")
        said = server_error(str(server.get("error_code")), server.get("error"), language)
        print(f"       {said}")
    keyring = report["keyring"]
    if keyring["usable"] and keyring.get("locked"):
        line("warn", "keyring_locked", backend=keyring["backend"])
    elif keyring["usable"] and keyring.get("state") == "missing":
        line("info", "keyring_missing", backend=keyring["backend"])
    elif keyring["usable"]:
        line("ok", "keyring_ok", backend=keyring["backend"])
    else:
        line("warn", "keyring_off", backend=keyring["backend"])
        for cause in keyring.get("causes", []):
            print(f"       {keyring_cause(cause.get('code'), cause.get('detail'), language)}")
    print_rules(report.get("rules") or {}, language)
    for name, value in report["paths"].items():
        line("info", "path", name=name_word(name, language), value=value)
    for name, value in report.get("desktop", {}).items():
        said = value_words(value, language)
        line("info", "desktop", name=name_word(name, language), value=said)


def rules_report(rules: list[Any], servers: dict[str, Any]) -> dict[str, Any]:
    """How many lasting permission rules hold, and each one that is ignored and why."""
    from tray_app.cli.rules_cli import known_names, listing

    rows = listing(rules, known_names(servers))
    return {
        "count": len(rows),
        "in_force": sum(1 for row in rows if row["in_force"]),
        "problems": [row for row in rows if row["problem"] is not None],
    }


def print_rules(rules: dict[str, Any], language: str) -> None:
    """A warning line for each rule that is ignored (or a deny kept only as written)."""
    from tray_app.cli.rules_cli import problem_text, words

    if not rules.get("count"):
        return
    status = "warn" if rules["problems"] else "ok"
    said = words(language, "rules.doctor_ok", count=rules["in_force"])
    print(f"{doctor_line(language, status)} {said}")
    for row in rules["problems"]:
        why = problem_text(row["problem"], language)
        text = words(language, "rules.doctor_problem", n=row["n"], tool=row["tool"], why=why)
        print(f"       {written_out(text)}")


def _capability(cap: str, language: str) -> str:
    """A model's capability as the server named it; a failed look-up in the terminal's words."""
    prefix = "unknown ("
    if cap.startswith(prefix) and cap.endswith(")"):
        return doctor_line(language, "unknown_caps", why=cap[len(prefix) : -1])
    return written_out(cap)


def run_doctor(args: argparse.Namespace) -> int:
    report = gather(args.endpoint)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        # the terminal's language, as `chat` says it (Core's own function, without Core)
        print_report(report, system_language())
    return 0 if report["server"].get("reachable") else 1
