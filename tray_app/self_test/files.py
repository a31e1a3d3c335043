"""Self-test checks on what a bundle carries: the app's modules, the libraries the desktop needs,
the ``rg`` binary and the web page. Each returns a one-line summary or raises ``Missing``
naming what is not there, so a broken installer says exactly what it lost."""

from __future__ import annotations

import dis
import importlib
import importlib.util
import json
import pkgutil
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import CodeType
from typing import Any

import tray_app


class Missing(Exception):
    """What a check did not find; its message is shown to the user as is."""


#: Modules for other systems: importing them here is not expected to work.
OTHER_OS = {
    "linux": ("_macos", "_windows"),
    "darwin": ("_windows", "_x11", "_portal", "_linux"),
    "win32": ("_macos", "_x11", "_portal", "_linux"),
}
#: Third-party modules the app imports only on another system (SecretStorage: Linux's keyring).
OTHER_OS_LIBRARIES = {
    "linux": ("AppKit", "Foundation", "PyObjCTools", "objc", "Quartz", "winrt", "clr", "win32"),
    "darwin": ("gi", "Xlib", "dbus_fast", "secretstorage", "winrt", "clr", "win32"),
    "win32": (
        "gi",
        "Xlib",
        "dbus_fast",
        "secretstorage",
        "AppKit",
        "Foundation",
        "PyObjCTools",
        "objc",
        "Quartz",
    ),
}
LOCALES = ("en", "zh-CN")
PLURAL_RE = re.compile(r"_(zero|one|two|few|many|other)$")  # plural forms differ by language


def _platform() -> str:
    return "linux" if sys.platform.startswith("linux") else sys.platform


def check_modules() -> str:
    """Every module of the app imports (a bundle missing one fails only when it is used)."""
    skip = OTHER_OS.get(_platform(), ())
    names = [
        info.name
        for info in pkgutil.walk_packages(tray_app.__path__, "tray_app.")
        if not info.name.endswith((*skip, "__main__")) and ".self_test" not in info.name
    ]
    failed = []
    for name in sorted(names):
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
    if failed:
        raise Missing("cannot import " + "; ".join(failed))
    if len(names) < 20:
        raise Missing(f"only {len(names)} app modules found; the bundle lost its package")
    return f"{len(names)} app modules import"


def _imported_names(code: CodeType, found: set[str]) -> None:
    for instruction in dis.get_instructions(code):
        if instruction.opname == "IMPORT_NAME":
            found.add(str(instruction.argval))
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _imported_names(const, found)


def check_dependencies(*, display: bool) -> str:
    """Every third-party module the app's code imports, lazy imports inside functions too (read
    from its bytecode, so this works in a frozen bundle): a library imported on first use only
    (the MCP SDK, keyring...) that the bundle lost would otherwise fail in front of a user."""
    found: set[str] = set()
    for info in pkgutil.walk_packages(tray_app.__path__, "tray_app."):
        spec = importlib.util.find_spec(info.name)
        get_code = getattr(spec.loader, "get_code", None) if spec else None
        code = get_code(info.name) if get_code else None
        if isinstance(code, CodeType):
            _imported_names(code, found)
    skip = OTHER_OS_LIBRARIES.get(_platform(), ())
    if not display:
        skip += ("pystray",)  # it picks its backend when imported: that needs a display
    names = sorted(
        name
        for name in found
        if name.split(".")[0] not in sys.stdlib_module_names
        and not name.startswith(("tray_app", *skip))
    )
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
    if failed:
        raise Missing("cannot import " + "; ".join(failed))
    return f"{len(names)} library modules the app uses import"


def check_desktop_libraries() -> str:
    """The GUI libraries the popup and tray load (checked where the GUI code lives)."""
    from tray_app.desktop.libraries import load_failures

    loaded, failed = load_failures(_platform())
    if failed:
        raise Missing("cannot load " + "; ".join(failed))
    return f"{loaded} libraries load"


def check_ripgrep() -> str:
    """search_files' ``rg`` is found where the tool looks for it, and runs."""
    from tray_app.tools.search.search_rg import rg_binary

    path = rg_binary()
    if path is None:
        raise Missing("rg (ripgrep) not found next to the program or on PATH")
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=20, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise Missing(f"rg at {path} does not run ({exc})") from None
    return f"{out.splitlines()[0] if out else 'rg'} at {path}"


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        ref = values.get("src") if tag == "script" else values.get("href")
        if tag in ("script", "link") and ref and not ref.startswith(("data:", "http")):
            self.refs.append(ref)


IMPORT_RE = re.compile(r"""(?:^|[;\s])(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]""", re.M)


def check_web(root: Path) -> str:
    """The page, its styles and scripts (following every ES module import), and both locales."""
    index = root / "index.html"
    if not index.is_file():
        raise Missing(f"web page not found at {index}")
    parser = _Refs()
    parser.feed(index.read_text(encoding="utf-8"))
    if "app" not in parser.ids or not parser.refs:
        raise Missing(f"{index} has no #app or no scripts: not the app's page")
    missing: list[str] = []
    seen: set[Path] = set()
    todo = [root / ref for ref in parser.refs]
    while todo:
        path = todo.pop().resolve()
        if path in seen:
            continue
        seen.add(path)
        if not path.is_file():
            missing.append(str(path.relative_to(root.resolve())))
            continue
        if path.suffix in (".js", ".mjs"):
            text = path.read_text(encoding="utf-8")
            todo += [path.parent / spec for spec in IMPORT_RE.findall(text) if spec[0] == "."]
    if missing:
        raise Missing("web files missing: " + ", ".join(sorted(missing)))
    keys = [_flat_keys(root / "locales" / f"{lang}.json") for lang in LOCALES]
    if keys[0] != keys[1]:
        raise Missing(f"locales differ: {len(keys[0] ^ keys[1])} keys only in one of {LOCALES}")
    return f"{len(seen)} page files, {len(keys[0])} strings in {' and '.join(LOCALES)}"


def _flat_keys(path: Path) -> set[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise Missing(f"locale {path.name} unreadable ({exc})") from None
    if not isinstance(data, dict) or not data:
        raise Missing(f"locale {path.name} is empty")
    return {PLURAL_RE.sub("", key) for key in _walk(data, "")}


def _walk(node: Any, prefix: str) -> list[str]:
    if not isinstance(node, dict):
        return [prefix]
    return [key for k, v in node.items() for key in _walk(v, f"{prefix}.{k}" if prefix else k)]
