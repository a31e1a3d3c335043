"""``metona-tray doctor``: what works on this machine and how to fix what does not."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from tray_app.errors import ProviderError
from tray_app.paths import AppPaths
from tray_app.providers.factory import make_provider
from tray_app.store.secrets import SecretStore
from tray_app.store.settings import load_settings


async def check_server(kind: str, endpoint: str) -> dict[str, Any]:
    provider = make_provider(kind, endpoint)
    report: dict[str, Any] = {"endpoint": endpoint, "kind": kind}
    try:
        report["version"] = await provider.version()
        report["reachable"] = True
        models = []
        for model in await provider.list_models():
            try:
                info = await provider.model_info(model.name)
                caps = info.capabilities
            except ProviderError as exc:
                caps = [f"unknown ({exc})"]
            models.append({"name": model.name, "capabilities": caps})
        report["models"] = models
        if not models:
            report["hint"] = "No model installed. Pull one: ollama pull qwen3:8b"
    except ProviderError as exc:
        report["reachable"] = False
        report["error"] = str(exc)
    finally:
        await provider.aclose()
    return report


def gather(endpoint: str | None) -> dict[str, Any]:
    paths = AppPaths.from_env()
    settings = load_settings(paths.settings_file)
    server = asyncio.run(check_server(settings.provider, endpoint or settings.endpoint))
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
    report["keyring"] = {
        "usable": secrets.usable,
        "backend": secrets.backend_name,
        "reason": secrets.reason,
        "locked": secrets.locked(),
    }
    try:
        from tray_app.desktop.checks import desktop_report

        report["desktop"] = desktop_report(settings.hotkey, paths.runtime_dir)
    except ImportError:
        report["desktop"] = {"available": False, "reason": "desktop extras not installed"}
    return report


def print_report(report: dict[str, Any]) -> None:
    server = report["server"]
    mark = "ok " if server.get("reachable") else "FAIL"
    print(f"[{mark}] {server['kind']} at {server['endpoint']}", end="")
    if server.get("reachable"):
        print(f" (version {server.get('version')})")
        for model in server.get("models", []):
            print(f"       - {model['name']}: {', '.join(model['capabilities'])}")
        if server.get("hint"):
            print(f"       {server['hint']}")
    else:
        print(f"\n       {server.get('error')}")
    keyring = report["keyring"]
    if keyring["usable"] and keyring.get("locked"):
        print(
            f"[warn] keyring: {keyring['backend']} is locked; the app asks for its password "
            "when it first needs a key (unlock it at login to avoid that)"
        )
    elif keyring["usable"]:
        print(f"[ok ] keyring: {keyring['backend']} (API keys are stored there)")
    else:
        print(f"[warn] keyring: {keyring['reason']}; API keys are kept for the session only")
    for name, value in report["paths"].items():
        print(f"[info] {name}: {value}")
    desktop = report.get("desktop", {})
    for key, value in desktop.items():
        print(f"[info] desktop {key}: {value}")


def run_doctor(args: argparse.Namespace) -> int:
    report = gather(args.endpoint)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)
    return 0 if report["server"].get("reachable") else 1
