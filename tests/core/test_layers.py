"""The package layering: imports only go down, and no two modules import each other.

The allowed edges are written here from the layer drawing in docs/architecture.md. ``KNOWN`` lists
the edges that still break it; this test fails both when a new upward edge appears and when a
known one is gone (so the list only ever shrinks). Below the packages, the modules' own import
graph (every import: at the top, inside functions, for type checking only) has no circle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tray_app"

#: Modules and packages every layer may import: the bottom of the tree.
BOTTOM = {
    "base",  # errors, events, messages, paths, runtime folder, logs, atomic writes
    "i18n",  # the one catalogue reader: words in the user's language (imports only web_files)
    "web_files",  # where web/ is; the page's locale texts the Python side also says (stdlib)
    "tool_errors",
    "undo_reasons",  # why a change cannot be undone, coded (imports os_reasons, tool_errors)
    "os_reasons",  # an OS error's reason by its errno, in words (imports only tool_errors)
    "history_warnings",  # why history is off or read-only, coded (imports os_reasons, tool_errors)
    "terminal_errors",  # the coded failures' texts for the terminal and the tray (bottom, i18n)
    "",
}
#: What each top-level module or package of ``tray_app`` may import besides ``BOTTOM``.
ALLOWED: dict[str, set[str]] = {
    "__main__": {"cli"},
    "cli": {"agent", "core", "desktop", "mcp", "providers", "self_test", "store", "tools"},
    "self_test": {"core", "desktop", "store", "tools"},
    "desktop": {"core", "store", "tools"},
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


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """Each module of ``tray_app`` and the modules it imports (``from pkg import mod`` names
    ``pkg.mod``; ``from mod import name`` names ``mod``)."""
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}

    def known(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        found: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    found.add(full if full in paths else known(node.module))
            elif isinstance(node, ast.Import):
                found.update(known(alias.name) for alias in node.names)
        graph[name] = {target for target in found if target and target != name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


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


def test_no_two_modules_import_each_other() -> None:
    assert import_circles(module_graph()) == []


def test_a_circle_is_found_through_any_number_of_modules() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert import_circles(graph) == [["a", "b", "c"]]
    assert import_circles({"x": {"y"}, "y": set()}) == []


def test_the_graph_sees_imports_inside_functions_and_for_type_checking() -> None:
    graph = module_graph()
    assert "tray_app.tools.journal.journal" in graph["tray_app.tools.base"]  # TYPE_CHECKING
    assert "tray_app.cli.mcp_serve" in graph["tray_app.cli.mcp_cli"]  # inside run_mcp
