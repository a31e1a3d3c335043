"""A tool's declaration: everything the app knows about a tool, in one value.

A ``Tool`` is a name, a description, a pydantic args model, a risk, a handler and (for tools
that change something) a preview, plus the facts that decide whether a call needs asking and how
it is undone and named. Tools written in Python declare one in their own module
(``TOOL = Tool(...)``); tools that are not Python modules (MCP servers) are declared at run time
by ``tools.external.external_tool``. ``tools.registry`` collects them and ``tools.toolbox`` runs
them. This module imports no tool, so every tool module may import it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from tray_app.i18n import lookup, t
from tray_app.tools.result import ToolResult

if TYPE_CHECKING:
    from tray_app.tools.journal.journal import Journal
    from tray_app.tools.sandbox.policy import SandboxPolicy


class ToolArgs(BaseModel):
    """The base of built-in tools' argument models.

    Their validators are built at a tool's first call, not at import: a turn in which the model
    calls no tool never needs them (the schemas the model sees come from ``tool_schemas.py``).
    """

    model_config = ConfigDict(defer_build=True)


_BUILD_LOCK = threading.Lock()


def model_key(model: type[BaseModel]) -> str:
    """An argument model's key in ``tool_schemas.py``: where it is defined, so a test's own
    model that borrows a built-in tool's name never picks up that tool's schema."""
    return f"{model.__module__}.{model.__qualname__}"


def validate_args(model: type[BaseModel], data: Any) -> BaseModel:
    """``model.model_validate(data)``, building a deferred model first under a lock: pydantic's
    own build at first use is not safe when two threads reach it at once."""
    if not model.__pydantic_complete__:
        with _BUILD_LOCK:
            if not model.__pydantic_complete__:
                model.model_rebuild()
    return model.model_validate(data)


class Risk(str, Enum):
    """Drives confirmation: reads never ask, writes ask by mode, the rest always ask."""

    READ = "read"
    WRITE = "write"
    DESTRUCTIVE = "destructive"
    COMMAND = "command"

    @classmethod
    def from_hints(cls, *, read_only: bool | None, destructive: bool | None) -> Risk:
        """The risk of a tool described by MCP-style annotations (``readOnlyHint``,
        ``destructiveHint``). Unannotated means the worst: MCP's own default for a tool that
        is not read-only is "destructive"."""
        if read_only:
            return cls.READ
        return cls.WRITE if destructive is False else cls.DESTRUCTIVE


ProgressFn = Callable[[float, "float | None", "str | None"], None]


@dataclass
class ToolContext:
    """What a handler may use besides its arguments."""

    policy: SandboxPolicy
    journal: Journal | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    call_id: str | None = None
    undo_optional: bool = False  # the user allowed changes the journal cannot keep a copy of
    # The preview's ``binding`` the user approved (``tools.sandbox.binding``): a handler that finds
    # another target there when it runs changes nothing.
    bound: Mapping[str, Any] | None = None
    shallow_undo: bool = False  # from the declaration: the journal keeps no folder tree
    # How far a long call has got (done, total or None, message or None): shown on its card.
    # Safe to call from any thread; the caller throttles.
    progress: ProgressFn | None = None
    #: The characters of JSON the model may receive for this call (``tool_result_limit`` and
    #: the context left); a tool that knows its data sizes itself to it (``tools.fit``).
    result_chars: int | None = None


Handler = Callable[[ToolContext, Any], ToolResult]
AsyncHandler = Callable[[ToolContext, Any], Awaitable[ToolResult]]


@dataclass(frozen=True)
class Tool:
    """One tool's declaration. The four first fields may be given by position."""

    name: str
    description: str
    args_model: type[BaseModel]
    risk: Risk
    handler: Handler | AsyncHandler
    preview: Handler | None = None
    _: KW_ONLY
    #: In ``delete_only`` mode a write asks only when its preview says ``overwrites``; with this
    #: set it also asks when the preview says the target ``exists`` (write_file).
    asks_when_exists: bool = False
    #: The undo journal keeps no copy of a folder's tree for it (write_file and
    #: create_directory never change what is inside a folder).
    shallow_undo: bool = False
    #: Its name for people is the catalogue's ``title_key`` (``tool.<name>`` when empty) with
    #: ``title_params``: notifications, the terminal.
    title_key: str = ""
    title_params: Mapping[str, str] = field(default_factory=dict)
    #: The JSON schema the model sees; by default the args model's, cleaned.
    parameters: Mapping[str, Any] | None = None
    #: The handler is a coroutine function: it is awaited on the core loop instead of running
    #: in a worker thread (MCP calls). It must watch ``ctx.cancel`` or accept cancellation.
    is_async: bool = False
    #: Where it comes from: ``builtin``, or e.g. ``mcp:github``.
    origin: str = "builtin"
    #: It sends its arguments over the network (web_fetch): what a guard against text from
    #: local files leaving looks for.
    network: bool = False

    def title(self, lang: str) -> str | None:
        """Its name for people in ``lang``; None when the catalogue has none."""
        key = self.title_key or f"tool.{self.name}"
        return t(key, lang, **self.title_params) if lookup(key, lang) is not None else None

    def schema(self) -> dict[str, Any]:
        if self.parameters is not None:
            return dict(self.parameters)
        from tray_app.tools.tool_schemas import SCHEMAS  # generated: tools.schema_snapshot

        known = SCHEMAS.get(model_key(self.args_model))
        if known is not None:
            return dict(known)
        return clean_schema(self.args_model.model_json_schema())

    def definition(self) -> dict[str, Any]:
        """The OpenAI-style function definition sent to the model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.schema(),
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


def describe_validation_error(exc: ValidationError) -> str:
    """What is wrong with the arguments: each bad field and pydantic's words for it."""
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)
