"""Declaring, at run time, a tool that is not a Python module (an MCP server's tool).

Such a tool arrives as a name, a description, a JSON schema and annotations; its call is a
function of the arguments (blocking or a coroutine). ``external_tool`` turns that into the same
``Tool`` the built-in tools declare, so the registry, the approval rules, the budgets and the
page treat it like any other: its risk comes from its annotations, its schema is what the model
sees, and its arguments are checked once (an object, the schema's required keys present, at
most ``MAX_ARGUMENT_KEYS`` keys) before the server sees them; the server checks the rest.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar, cast

from pydantic import BaseModel, ConfigDict, model_validator

from tray_app.tools.base import Risk, Tool, ToolContext
from tray_app.tools.result import ToolResult

MAX_ARGUMENT_KEYS = 256

#: What an external call receives: the arguments as a plain dict, and the turn's cancel flag
#: (set when the user stops the turn).
ExternalCall = Callable[[dict[str, Any], ToolContext], ToolResult | Awaitable[ToolResult]]


class ExternalArgs(BaseModel):
    """Any JSON object; the declared schema's required keys are checked by the subclass."""

    model_config = ConfigDict(extra="allow")
    required_keys: ClassVar[tuple[str, ...]] = ()  # the schema's ``required``, per subclass

    @model_validator(mode="before")
    @classmethod
    def _object_with_required(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError("arguments must be a JSON object")
        if len(data) > MAX_ARGUMENT_KEYS:
            raise ValueError(f"at most {MAX_ARGUMENT_KEYS} arguments")
        missing = [key for key in cls.required_keys if key not in data]
        if missing:
            raise ValueError("missing required argument(s): " + ", ".join(missing))
        return data

    def arguments(self) -> dict[str, Any]:
        """The arguments as the model sent them."""
        return dict(self.model_extra or {})


def args_model_for(name: str, schema: Mapping[str, Any]) -> type[ExternalArgs]:
    """An args model that accepts what ``schema`` describes, checking its required keys."""
    required = schema.get("required")
    keys = tuple(str(k) for k in required) if isinstance(required, list) else ()
    model = type("ExternalToolArgs", (ExternalArgs,), {"required_keys": keys})
    model.__doc__ = f"Arguments of {name}."
    return cast("type[ExternalArgs]", model)


def external_tool(
    *,
    name: str,
    description: str,
    schema: Mapping[str, Any],
    call: ExternalCall,
    read_only: bool | None = None,
    destructive: bool | None = None,
    risk: Risk | None = None,
    title_key: str = "",
    title_params: Mapping[str, str] | None = None,
    origin: str = "external",
) -> Tool:
    """A ``Tool`` for a function described by a JSON schema. ``risk`` wins over the hints;
    without either the tool counts as destructive (always asks). ``call`` may be a coroutine
    function: it is then awaited on the core loop."""
    parameters = dict(schema) if isinstance(schema, Mapping) else {}
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    is_async = inspect.iscoroutinefunction(call)

    if is_async:

        async def run_async(ctx: ToolContext, args: ExternalArgs) -> ToolResult:
            outcome = call(args.arguments(), ctx)
            assert inspect.isawaitable(outcome)
            return await outcome

        handler: Any = run_async
    else:

        def run(ctx: ToolContext, args: ExternalArgs) -> ToolResult:
            return cast("ToolResult", call(args.arguments(), ctx))

        handler = run

    return Tool(
        name,
        description,
        args_model_for(name, parameters),
        risk or Risk.from_hints(read_only=read_only, destructive=destructive),
        handler,
        parameters=parameters,
        title_key=title_key,
        title_params=dict(title_params or {}),
        is_async=is_async,
        origin=origin,
    )
