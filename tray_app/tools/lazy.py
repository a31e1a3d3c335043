"""The built-in tools as the generated manifest declares them (``tool_schemas.TOOLS``), each
tool's module imported at its first call.

A turn offers the model every enabled tool but usually calls none, and the registry, the
toolbox's definitions and the settings' filter need only a tool's name, description, schema,
risk. Importing the 13 tool modules for that cost ~13 ms of a one-shot chat. A
``ManifestTool`` carries those facts from the manifest; its args model, handler and preview are
the real declaration's, imported the first time one of them is read (``Toolbox.check``).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from tray_app.tools.base import Handler, Risk, Tool

_LOAD_LOCK = threading.Lock()


class StaleManifest(RuntimeError):
    """The manifest no longer says what a tool's module declares: run ``make tool-schemas``."""


def declared_in(module: object, name: str) -> Tool | None:
    """The tool called ``name`` that ``module`` declares: its ``TOOL`` or one of a family's
    ``*_TOOLS`` list (``shell.SHELL_TOOLS``)."""
    for attribute, value in vars(module).items():
        if attribute == "TOOL" and isinstance(value, Tool) and value.name == name:
            return value
        if attribute.endswith("_TOOLS") and isinstance(value, list):
            for tool in value:
                if isinstance(tool, Tool) and tool.name == name:
                    return tool
    return None


def load_declared(module_name: str, name: str, *, printable: bool) -> Tool:
    """Import the module that declares ``name`` and return its declaration (a file tool's
    answers made printable, as ``files.FILE_TOOLS`` has them)."""
    tool = declared_in(importlib.import_module(module_name), name)
    if tool is None:
        raise StaleManifest(f"{module_name} declares no tool {name!r}: run `make tool-schemas`")
    if printable:
        from tray_app.tools.builtin.printable import wrapped

        tool = wrapped(tool)
    return tool


class ManifestTool(Tool):
    """A built-in tool known from the manifest; the real declaration loads on first use."""

    _module: str
    _printable: bool
    _real: Tool | None

    def __init__(self, entry: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
        facts: dict[str, Any] = {
            "name": entry["name"],
            "description": entry["description"],
            "risk": Risk(entry["risk"]),
            "title_key": "",
            "title_params": {},
            "parameters": schema,
            "asks_when_exists": entry["asks_when_exists"],
            "shallow_undo": entry["shallow_undo"],
            "network": entry.get("network", False),
            "_module": entry["module"],
            "_printable": entry["printable"],
            "_real": None,
        }
        for key, value in facts.items():
            object.__setattr__(self, key, value)  # a frozen dataclass's own way to set fields

    def declared(self) -> Tool:
        """The real declaration, imported once; a manifest that no longer matches it in what
        decides approvals refuses to run it."""
        real = self._real
        if real is not None:
            return real
        with _LOAD_LOCK:
            if self._real is None:
                real = load_declared(self._module, self.name, printable=self._printable)
                facts = (real.risk, real.asks_when_exists, real.shallow_undo, real.is_async)
                if (*facts, real.network) != (
                    self.risk,
                    self.asks_when_exists,
                    self.shallow_undo,
                    self.is_async,
                    self.network,
                ):
                    raise StaleManifest(f"{self.name} changed: run `make tool-schemas`")
                object.__setattr__(self, "_real", real)
            loaded = self._real
        assert loaded is not None
        return loaded

    @property
    def args_model(self) -> type[BaseModel]:
        return self.declared().args_model

    @property
    def handler(self) -> Any:
        return self.declared().handler

    @property
    def preview(self) -> Handler | None:
        return self.declared().preview

    def is_loaded(self) -> bool:
        return self._real is not None

    # The dataclass's own comparison and repr read every field, which would load the module.
    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"ManifestTool(name={self.name!r}, module={self._module!r})"


def manifest_tools() -> list[Tool]:
    """Fresh lazy declarations of the built-in tools, in the order the model sees them."""
    from tray_app.tools.tool_schemas import SCHEMAS, TOOLS

    return [ManifestTool(entry, SCHEMAS[entry["model"]]) for entry in TOOLS]
