"""The package layering: imports only go down.

The allowed edges are written here from the layer drawing in ARCHITECTURE.md. ``KNOWN`` lists
the edges that still break it; the [contract] work removes them, and this test fails both when a
new upward edge appears and when a known one is gone (so the list only ever shrinks).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tray_app"

#: Modules every layer may import: the bottom of the tree.
BOTTOM = {
    "errors",
    "tool_errors",
    "undo_reasons",  # why a change cannot be undone, coded (imports os_reasons, tool_errors)
    "os_reasons",  # an OS error's reason by its errno, in words (imports only tool_errors)
    "history_warnings",  # why history is off or read-only, coded (imports os_reasons, tool_errors)
    "terminal_errors",  # the coded failures' texts for the terminal and the tray (bottom, i18n)
    "web_files",  # where web/ is; the page's locale texts the Python side also says (stdlib)
    "i18n",  # the one catalogue reader: words in the user's language (imports only web_files)
    "paths",
    "runtime_dir",
    "logs",
    "events",
    "messages",
    "atomic",
    "",
}
#: What each top-level module or package of ``tray_app`` may import besides ``BOTTOM``.
ALLOWED: dict[str, set[str]] = {
    "__main__": {"cli"},
    "cli": {
        "desktop",
        "doctor",
        "terminal",
        "changes_cli",
        "store",
        "core",
        "tools",
        "mcp_cli",
        "rules_cli",
        "models_cli",
        "self_test",
        "quick_exit",
        "terminal_lines",
    },
    "quick_exit": set(),
    "self_test": {"core", "desktop", "store", "tools"},
    "desktop": {"core", "store", "tools"},
    "doctor": {
        "agent",
        "desktop",
        "providers",
        "store",
        "tools",
        "doctor_lines",
        "terminal_lines",
        "rules_cli",
    },
    "doctor_lines": {"terminal_lines"},
    "terminal": {
        "core",
        "store",
        "terminal_render",
        "terminal_preview",
        "terminal_lines",
        "tools",
        "rules_cli",
    },
    "terminal_render": {"core", "terminal_preview", "terminal_lines"},
    "terminal_lines": set(),
    "terminal_preview": set(),
    "mcp_cli": {"core", "mcp", "store", "mcp_serve", "mcp_import_cli"},
    "mcp_import_cli": {"mcp", "store", "mcp_cli"},
    "rules_cli": {"core", "desktop", "store", "tools"},
    "mcp_serve": {"core", "desktop", "store", "tools", "mcp_serve_changes"},
    "mcp_serve_changes": set(),
    "models_cli": {"agent", "core", "desktop", "store"},
    "changes_cli": {"core", "store", "tools", "terminal_lines", "changes_turns"},
    "changes_turns": set(),
    "core": {"agent", "providers", "tools", "store", "mcp"},
    "agent": {"providers", "tools", "store"},
    "mcp": {"tools"},
    "providers": set(),
    "tools": set(),
    "store": set(),
}
#: Edges that break the layering today, each with why it is there.
KNOWN: dict[tuple[str, str], str] = {}


def _imports(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "tray_app":
                yield parts[1] if len(parts) > 1 else ""


def _owner(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("").parts
    return rel[0]


def edges() -> set[tuple[str, str]]:
    found = set()
    for path in PACKAGE.rglob("*.py"):
        owner = _owner(path)
        for target in _imports(path):
            if target != owner and target not in BOTTOM:
                found.add((owner, target))
    return found


def test_every_module_has_a_layer() -> None:
    owners = {_owner(path) for path in PACKAGE.rglob("*.py")} - {"__init__"}
    assert owners <= set(ALLOWED) | BOTTOM, owners - set(ALLOWED) - BOTTOM


def test_imports_only_go_down() -> None:
    upward = {edge for edge in edges() if edge[1] not in ALLOWED.get(edge[0], set())}
    assert upward - set(KNOWN) == set(), "new imports against the layering"
    assert set(KNOWN) - upward == set(), "a known violation is gone: remove it from KNOWN"
