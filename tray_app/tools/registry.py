"""The one place tools are collected: the built-in declarations, and the registry type that
run-time tools (MCP) are added to.

Every tool module declares ``TOOL`` (or a small family a list of them) and imports only
``tools.base`` and its helpers; this module imports the tool modules, so there is no circle
between the declarations and the list of them. To add a tool, declare it in its module and add
that module here (docs/architecture.md, "Where to add things"), then run ``make tool-schemas``: the
registry a turn uses is built from the generated manifest (``tools.lazy``), so a turn in which
the model calls no tool imports no tool module.
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
    """The built-in declarations: the seed tools in their original order, then the rest (this
    imports every tool module; a turn's registry loads each at its first call instead)."""
    from tray_app.tools.builtin.files import FILE_TOOLS
    from tray_app.tools.builtin.git_tools import GIT_TOOLS
    from tray_app.tools.builtin.shell import SHELL_TOOLS
    from tray_app.tools.builtin.web_tools import WEB_TOOLS

    return [*FILE_TOOLS, *SHELL_TOOLS, *GIT_TOOLS, *WEB_TOOLS]


def default_registry() -> ToolRegistry:
    """A fresh registry of the built-in tools (each Core owns one and may add to it), from the
    manifest: a tool's module is imported at its first call."""
    from tray_app.tools.lazy import manifest_tools

    return ToolRegistry(manifest_tools())


def builtin_titles(lang: str) -> dict[str, str]:
    """The built-in tools' names for people in ``lang`` (English where a title is missing)."""
    from tray_app.tools.lazy import manifest_tools

    titles: dict[str, str] = {}
    for tool in manifest_tools():
        title = tool.title(lang)
        if title:
            titles[tool.name] = title
    return titles
