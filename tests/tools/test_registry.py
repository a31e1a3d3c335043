"""The registry and the declaration shape: one place lists the tools, the declarations carry
the facts other modules used to hard-code by name, and run-time declarations (MCP) work the
same way through the toolbox."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tray_app.tools.base import Risk, ToolContext
from tray_app.tools.external import MAX_ARGUMENT_KEYS, external_tool
from tray_app.tools.registry import ToolRegistry, builtin_tools, default_registry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import CheckedCall, Toolbox

ROOT = Path(__file__).resolve().parents[2] / "tray_app"
NAMES = [tool.name for tool in builtin_tools()]


def _tray_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("tray_app.")}


def test_the_declarations_import_no_tool_and_only_the_toolbox_imports_the_registry() -> None:
    assert {
        name
        for name in _tray_imports(ROOT / "tools/base.py")
        if not name.endswith(".errors")
        and not name.startswith(("tray_app.tool_errors", "tray_app.i18n"))  # the bottom layer
    } <= {
        "tray_app.tools.journal.journal",
        "tray_app.tools.sandbox.policy",
        "tray_app.tools.tool_schemas",
        "tray_app.tools.result",
        "tray_app.tools.result.ToolResult",
    } | {
        "tray_app.tools.tool_schemas.SCHEMAS"  # generated data, no tool
    } | {
        f"tray_app.tools.{m}.{c}"
        for m, c in (("journal.journal", "Journal"), ("sandbox.policy", "SandboxPolicy"))
    }  # type-checking only
    for path in (ROOT / "tools").rglob("*.py"):
        if path.stem in ("registry", "toolbox", "schema_snapshot", "__init__"):
            continue
        imported = _tray_imports(path)
        assert "tray_app.tools.registry" not in imported, path.name
        assert "tray_app.tools.toolbox" not in imported, path.name


@pytest.mark.parametrize(
    "module",
    [
        "agent/approval.py",
        "agent/guards.py",
        "tools/journal/journal.py",
        "desktop/notify/notify_message.py",
    ],
)
def test_no_tool_is_named_where_the_rules_are(module: str) -> None:
    """Asking, budgets, undo depth and notifications read the declaration or the preview."""
    strings = [
        node.value
        for node in ast.walk(ast.parse((ROOT / module).read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    assert [s for s in strings if s in NAMES] == []


def test_every_builtin_tool_declares_its_names_and_facts() -> None:
    tools = {tool.name: tool for tool in builtin_tools()}
    assert len(tools) == len(NAMES) == 18
    for tool in tools.values():
        assert tool.title("en") and tool.title("zh-CN") != tool.title("en"), tool.name
        assert tool.origin == "builtin" and not tool.is_async
        schema = tool.definition()["function"]["parameters"]
        assert schema["type"] == "object" and "title" not in json.dumps(schema)
    assert [n for n, t in tools.items() if t.asks_when_exists] == ["write_file"]
    assert sorted(n for n, t in tools.items() if t.shallow_undo) == [
        "create_directory",
        "write_file",
    ]
    assert tools["run_command"].risk is Risk.COMMAND
    assert tools["delete_file"].risk is Risk.DESTRUCTIVE
    assert tools["git_commit"].risk is Risk.WRITE
    assert {tools[n].risk for n in ("git_status", "git_diff", "git_log")} == {Risk.READ}


def test_each_registry_is_its_own() -> None:
    """A Core adds its MCP tools to its own registry; another Core never sees them."""
    mine, other = default_registry(), default_registry()
    mine.register(external_tool(name="x__y", description="d", schema={}, call=_echo))
    assert "x__y" in mine.names() and "x__y" not in other.names()
    with pytest.raises(ValueError, match="already registered"):
        mine.register(external_tool(name="x__y", description="d", schema={}, call=_echo))
    mine.unregister("x__y")
    mine.unregister("never")
    assert mine.names() == other.names()


@pytest.mark.parametrize(
    ("read_only", "destructive", "risk"),
    [
        (True, None, Risk.READ),
        (True, True, Risk.READ),
        (False, False, Risk.WRITE),
        (None, False, Risk.WRITE),
        (None, None, Risk.DESTRUCTIVE),
        (False, True, Risk.DESTRUCTIVE),
    ],
)
def test_risk_from_annotations(
    read_only: bool | None, destructive: bool | None, risk: Risk
) -> None:
    assert Risk.from_hints(read_only=read_only, destructive=destructive) is risk


def _echo(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    return {"success": True, "args": arguments}


def _box(tmp_path: Path, *tools: Any) -> Toolbox:
    policy = SandboxPolicy(allowed_dirs=[tmp_path], workspace=tmp_path, home=tmp_path)
    return Toolbox(policy, registry=ToolRegistry(tools))


SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "labels": {"type": "array"}},
    "required": ["title"],
}


def test_a_blocking_external_tool_gets_the_arguments_as_sent(tmp_path: Path) -> None:
    box = _box(
        tmp_path, external_tool(name="gh__issue", description="d", schema=SCHEMA, call=_echo)
    )
    args = {"title": "标题 🌀\u202e", "labels": ["a", {"deep": [1, None]}]}
    assert box.execute("gh__issue", args) == {"success": True, "args": args}
    assert box.execute("gh__issue", json.dumps(args)) == {"success": True, "args": args}
    missing = box.execute("gh__issue", {"labels": []})
    assert missing["success"] is False and "title" in missing["error"]
    assert box.execute("gh__issue", "[1, 2]")["success"] is False
    too_many = {f"k{i}": i for i in range(MAX_ARGUMENT_KEYS + 1)} | {"title": "t"}
    assert "at most" in box.execute("gh__issue", too_many)["error"]
    assert box.definitions()[0]["function"]["parameters"] == SCHEMA
    assert box.preview("gh__issue", args) == {"tool": "gh__issue", "kind": "none", "text": ""}


def test_an_async_external_tool_is_awaited_or_given_a_loop(tmp_path: Path) -> None:
    async def call(arguments: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        await asyncio.sleep(0)
        if arguments.get("fail"):
            raise OSError(5, "Input/output error")
        return {"success": True, "n": arguments["title"]}

    tool = external_tool(name="a__b", description="d", schema=SCHEMA, call=call, read_only=True)
    assert tool.is_async and tool.risk is Risk.READ
    box = _box(tmp_path, tool)
    assert box.execute("a__b", {"title": "同步"}) == {"success": True, "n": "同步"}
    checked = box.check("a__b", {"title": "异步"})
    assert isinstance(checked, CheckedCall)
    assert asyncio.run(box.run_async(checked)) == {"success": True, "n": "异步"}
    failing = box.check("a__b", {"title": "x", "fail": True})
    assert isinstance(failing, CheckedCall)
    result = asyncio.run(box.run_async(failing))
    assert result["success"] is False and "Input/output error" in result["error"]


def test_check_refuses_unknown_disabled_and_hostile_arguments(tmp_path: Path) -> None:
    box = _box(tmp_path, external_tool(name="t", description="d", schema=SCHEMA, call=_echo))
    unknown = box.check("nope", {})
    assert not isinstance(unknown, CheckedCall)
    assert (unknown["error"], unknown["code"]) == ("unknown tool 'nope'", "unknown_tool")
    box.enabled = set()
    off = box.check("t", {"title": "x"})
    assert not isinstance(off, CheckedCall)
    assert (off["error"], off["code"]) == ("tool 't' is not enabled", "tool_not_enabled")
    box.enabled = {"t"}
    deep = "[" * 100_000 + "]" * 100_000
    nested = box.check("t", deep)
    assert not isinstance(nested, CheckedCall) and nested["code"] == "invalid_arguments"
