"""Builds what one turn needs from the current settings: its toolbox, its config, its folder."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from tray_app.agent.loop import TurnConfig
from tray_app.base.errors import InvalidRequest
from tray_app.base.paths import AppPaths
from tray_app.core.policy import sandbox_policy
from tray_app.i18n import resolve_language
from tray_app.store.settings import Settings
from tray_app.tools.base import Risk, Tool
from tray_app.tools.full_results import FullResults
from tray_app.tools.registry import ToolRegistry, default_registry
from tray_app.tools.toolbox import Toolbox

if TYPE_CHECKING:
    from tray_app.tools.journal.journal import Journal
    from tray_app.tools.sandbox.policy import SandboxPolicy


ExtraTools = Callable[[set[str]], list[Tool]]


class TurnFactory:
    def __init__(
        self,
        paths: AppPaths,
        registry: ToolRegistry | None = None,
        *,
        extra_tools: ExtraTools | None = None,
    ) -> None:
        self.paths = paths
        self.registry = registry
        self.extra_tools = extra_tools  # run-time tools (MCP), named against the built-in ones
        self._journal: Journal | None = None
        #: Results shortened for the model, kept whole for the card's "Show all".
        self.full_results = FullResults()

    def journal(self) -> Journal:
        if self._journal is None:
            from tray_app.tools.journal.journal import Journal

            self._journal = Journal(self.paths.journal_dir)
        return self._journal

    def close(self) -> None:
        """Close the undo journal's index if a turn or a command opened it."""
        if self._journal is not None:
            self._journal.close()

    def policy(self, settings: Settings, workspace: str | None) -> SandboxPolicy:
        return sandbox_policy(settings, self.paths, workspace=workspace)

    def check_workspace(self, settings: Settings, workspace: str | None) -> str | None:
        """A workspace must be an existing folder inside the allowed directories."""
        if not workspace:
            return None
        policy = self.policy(settings, None)
        resolved = policy.resolve(str(Path(workspace).expanduser()), access="list")
        if not resolved.is_dir():
            raise InvalidRequest(f"{workspace} is not a folder")
        return str(resolved)

    def workspace(self, settings: Settings, workspace: str | None) -> str:
        return str(self.policy(settings, workspace).workspace)

    def enabled_tools(self, settings: Settings, tools: Iterable[Tool]) -> list[str]:
        """The tools the settings leave on; commands only with the run_command switch."""
        return [
            tool.name
            for tool in tools
            if tool.name not in settings.disabled_tools
            and (settings.run_command_enabled or tool.risk is not Risk.COMMAND)
        ]

    def offered_extras(self, settings: Settings) -> list[Tool]:
        """The run-time (MCP) tools a turn would be offered now, named as the turn names them."""
        if not settings.tools_enabled or self.extra_tools is None:
            return []
        base = self.registry if self.registry is not None else default_registry()
        extra = self.extra_tools({tool.name for tool in base})
        enabled = set(self.enabled_tools(settings, extra))
        return [tool for tool in extra if tool.name in enabled]

    def toolbox(self, settings: Settings, workspace: str | None) -> Toolbox | None:
        if not settings.tools_enabled:
            return None
        registry = self.registry
        if self.extra_tools is not None:
            base = list(registry if registry is not None else default_registry())
            extra = self.extra_tools({tool.name for tool in base})
            registry = ToolRegistry([*base, *extra]) if extra else registry
        box = Toolbox(
            self.policy(settings, workspace),
            registry=registry,
            journal=self.journal,  # opened at the first call that needs it
            undo_optional=settings.allow_writes_without_undo,
        )
        box.enabled = set(self.enabled_tools(settings, box.registry))
        box.full_results = self.full_results
        return box

    def config(self, settings: Settings, model: str) -> TurnConfig:
        return TurnConfig(
            model=model, settings=settings, language=resolve_language(settings.language)
        )
