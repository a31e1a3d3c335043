"""Tool interface: a tool is a name, a description, a pydantic args model, a risk and a handler.

``Toolbox`` is what the agent loop uses. ``execute`` never raises for a tool failure: invalid
arguments, an unknown or disabled tool, a sandbox violation or an OS error all come back as
``{"success": False, "error": "..."}`` for the model (ARCHITECTURE.md §3, item 2).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from tray_app.errors import SandboxViolation, UndoUnavailable

if TYPE_CHECKING:
    from tray_app.tools.journal import Journal
    from tray_app.tools.sandbox import SandboxPolicy

log = logging.getLogger(__name__)

ToolResult = dict[str, Any]


class Risk(str, Enum):
    """Drives confirmation: reads never ask, writes ask by mode, the rest always ask."""

    READ = "read"
    WRITE = "write"
    DESTRUCTIVE = "destructive"
    COMMAND = "command"


@dataclass
class ToolContext:
    """What a handler may use besides its arguments."""

    policy: SandboxPolicy
    journal: Journal | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    call_id: str | None = None
    undo_optional: bool = False  # the user allowed changes the journal cannot keep a copy of
    # The preview's ``binding`` the user approved (``tools.binding``): a handler that finds
    # another target there when it runs changes nothing.
    bound: Mapping[str, Any] | None = None


Handler = Callable[[ToolContext, Any], ToolResult]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args_model: type[BaseModel]
    risk: Risk
    handler: Handler
    preview: Handler | None = None

    def definition(self) -> dict[str, Any]:
        """The OpenAI-style function definition sent to the model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": clean_schema(self.args_model.model_json_schema()),
            },
        }


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Make pydantic's schema plain for small models: no titles, no ``anyOf [X, null]``, and
    nested models written inline instead of as ``$ref`` into ``$defs``."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return walk({**defs[ref[8:]], **rest})
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title":
                continue
            if key == "default" and value is None:
                continue
            if key == "$defs":
                continue
            out[key] = walk(value)
        options = out.get("anyOf")
        if isinstance(options, list):
            non_null = [opt for opt in options if opt != {"type": "null"}]
            if len(non_null) == 1 and len(non_null) < len(options):
                out.pop("anyOf")
                out = {**non_null[0], **out}
        return out

    cleaned: dict[str, Any] = walk(schema)
    cleaned.setdefault("type", "object")
    cleaned.setdefault("properties", {})
    return cleaned


class ToolRegistry:
    """Named tools; further tools register here."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self) -> Any:
        return iter(self._tools.values())


def default_registry() -> ToolRegistry:
    """The seven seed tools."""
    from tray_app.tools.files import FILE_TOOLS
    from tray_app.tools.shell import SHELL_TOOLS

    return ToolRegistry([*FILE_TOOLS, *SHELL_TOOLS])


def failure(message: str, **extra: Any) -> ToolResult:
    return {"success": False, "error": message, **extra}


def parse_arguments(raw: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """Arguments arrive as an object or, from some servers, as a JSON string."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError("arguments must be a JSON object")
        return value
    return dict(raw)


def describe_validation_error(name: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return f"invalid arguments for {name}: " + "; ".join(parts)


class Toolbox:
    """The enabled tools bound to one sandbox policy (and, for undo, a journal)."""

    def __init__(
        self,
        policy: SandboxPolicy,
        enabled: Iterable[str] | None = None,
        *,
        registry: ToolRegistry | None = None,
        journal: Journal | None = None,
        undo_optional: bool = False,
    ) -> None:
        self.policy = policy
        self.registry = registry if registry is not None else default_registry()
        self.journal = journal
        self.undo_optional = undo_optional
        names = self.registry.names()
        self.enabled = set(names) if enabled is None else set(enabled) & set(names)

    def definitions(self) -> list[dict[str, Any]]:
        return [tool.definition() for tool in self.registry if tool.name in self.enabled]

    def tool(self, name: str) -> Tool | None:
        return self.registry.get(name)

    def is_enabled(self, name: str) -> bool:
        return name in self.enabled and self.registry.get(name) is not None

    def validate(self, name: str, args: Mapping[str, Any] | str | None) -> BaseModel | str:
        """The parsed arguments, or a sentence saying why the call cannot run."""
        tool = self.registry.get(name) if isinstance(name, str) else None
        if tool is None:
            return f"unknown tool {name!r}"
        if name not in self.enabled:
            return f"tool {name!r} is not enabled"
        try:
            return tool.args_model.model_validate(parse_arguments(args))
        except ValidationError as exc:
            return describe_validation_error(name, exc)
        except RecursionError:  # json.loads of "[[[[..." nested thousands deep
            return f"invalid arguments for {name}: the JSON is nested too deeply"
        except Exception as exc:  # whatever the model sent, execute() must answer, not raise
            return f"invalid arguments for {name}: {type(exc).__name__}: {exc}"

    def execute(
        self,
        name: str,
        args: Mapping[str, Any] | str | None,
        *,
        call_id: str | None = None,
        cancel: threading.Event | None = None,
        bound: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Run a tool. Blocking: the agent loop calls this in a worker thread."""
        parsed = self.validate(name, args)
        if isinstance(parsed, str):
            return failure(parsed)
        tool = self.registry.get(name)
        assert tool is not None
        context = ToolContext(
            policy=self.policy,
            journal=self.journal,
            cancel=cancel or threading.Event(),
            call_id=call_id,
            undo_optional=self.undo_optional,
            bound=bound,
        )
        return self._guard(name, lambda: tool.handler(context, parsed))

    def preview(self, name: str, args: Mapping[str, Any] | str | None) -> dict[str, Any]:
        """What a confirmation shows; never raises (a problem becomes ``kind: error``)."""
        parsed = self.validate(name, args)
        if isinstance(parsed, str):
            return {"tool": name, "kind": "error", "text": parsed}
        tool = self.registry.get(name)
        assert tool is not None
        if tool.preview is None:
            return {"tool": name, "kind": "none", "text": ""}
        context = ToolContext(policy=self.policy, journal=self.journal)
        result = self._guard(name, lambda: tool.preview(context, parsed))  # type: ignore[misc]
        if result.get("success") is False:
            return {"tool": name, "kind": "error", "text": str(result.get("error", ""))}
        if tool.risk is not Risk.READ and "persistence" not in result:
            warning = self._persistence(result)
            if warning is not None:
                result = {**result, "persistence": warning}
        return {"tool": name, **result}

    def _persistence(self, preview: Mapping[str, Any]) -> dict[str, str] | None:
        """The warning for a change that makes something run later (login, VS Code, git)."""
        for key in ("path", "destination"):
            value = preview.get(key)
            if isinstance(value, str) and value:
                found = self.policy.persistence_risk(Path(value))
                if found is not None:
                    return {**found, "path": value}
        return None

    @staticmethod
    def _guard(name: str, run: Callable[[], ToolResult]) -> ToolResult:
        try:
            return run()
        except (SandboxViolation, UndoUnavailable) as exc:
            return failure(str(exc))
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            return failure(f"{name} failed{where}: {exc.strerror or exc}")
        except Exception as exc:  # a bug must not end the turn; it is logged in full
            log.exception("tool %s crashed", name)
            return failure(f"{name} failed unexpectedly: {type(exc).__name__}: {exc}")
