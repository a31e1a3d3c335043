"""The one place tools are collected: the built-in declarations, and the registry type that
run-time tools (MCP) are added to.

Every tool module declares ``TOOL`` (or a small family a list of them) and imports only
``tools.base`` and its helpers; this module imports the tool modules, so there is no circle
between the declarations and the list of them. To add a tool, declare it in its module and add
that module here (ARCHITECTURE.md, "Where to add things").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tray_app.tools.base import Tool


class ToolRegistry:
    """Named tool declarations, in the order they were registered (the order the model sees)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        """Forget a tool (an MCP server that was stopped); unknown names are ignored."""
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)


def builtin_tools() -> list[Tool]:
    """The built-in declarations: the seed tools in their original order, then the rest."""
    from tray_app.tools.files import FILE_TOOLS
    from tray_app.tools.shell import SHELL_TOOLS

    return [*FILE_TOOLS, *SHELL_TOOLS]


def default_registry() -> ToolRegistry:
    """A fresh registry of the built-in tools (each Core owns one and may add to it)."""
    return ToolRegistry(builtin_tools())


def builtin_titles(lang: str) -> dict[str, str]:
    """The built-in tools' names for people in ``lang`` (English where a title is missing)."""
    titles: dict[str, str] = {}
    for tool in builtin_tools():
        title = tool.title(lang)
        if title:
            titles[tool.name] = title
    return titles
