"""Core commands about the server, models, settings, secrets and undo.

A mixin of ``Core`` (kept apart so each module stays small); it uses only the attributes
declared below, which ``Core.__init__`` sets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tray_app.core.bus import EventBus
from tray_app.core.mcp_host import McpHost
from tray_app.core.runner import CoreRunner
from tray_app.core.turns import TurnFactory
from tray_app.errors import (
    InvalidRequest,
    InvalidSettings,
    NotFound,
    ProviderError,
    UndoFailed,
    Unsupported,
)
from tray_app.events import (
    ModelsUpdated,
    PullProgressEvent,
    SettingsUpdated,
    UndoApplied,
)
from tray_app.paths import AppPaths
from tray_app.providers.base import ModelInfo, Provider
from tray_app.store.settings import Settings, save_settings

if TYPE_CHECKING:
    from tray_app.agent.approval import ApprovalBroker
    from tray_app.store.secrets import SecretStore


class ConfigCommands:
    paths: AppPaths
    bus: EventBus
    _settings: Settings
    _persist: bool
    _runner: CoreRunner
    _factory: TurnFactory
    _mcp: McpHost
    _broker: ApprovalBroker
    _run: Callable[..., Any]

    @property
    def secrets(self) -> SecretStore | None:
        raise NotImplementedError

    @property
    def provider(self) -> Provider:
        raise NotImplementedError

    async def _reset_provider(self) -> None:
        raise NotImplementedError

    # ---- server and models ------------------------------------------------------------------

    async def _models(self) -> dict[str, Any]:
        try:
            models = await self.provider.list_models()
        except ProviderError as exc:
            return {"models": [], "error": str(exc)}
        detailed: list[ModelInfo] = []
        for model in models:
            try:
                info = await self.provider.model_info(model.name)
            except ProviderError:
                detailed.append(model)
                continue
            detailed.append(
                model.model_copy(
                    update={
                        "capabilities": info.capabilities,
                        "context_length": info.context_length,
                    }
                )
            )
        return {"models": [m.model_dump() for m in detailed], "error": None}

    def list_models(self) -> dict[str, Any]:
        """Installed models with their capabilities, or the reason there are none."""

        async def read() -> dict[str, Any]:
            result = await self._models()
            self.bus.publish(ModelsUpdated(models=result["models"], error=result["error"]))
            return result

        return dict(self._runner.run(read(), 60))

    def server_status(self) -> dict[str, Any]:
        """Whether the server answers, and its version (the onboarding screen's check)."""

        async def read() -> dict[str, Any]:
            try:
                version = await self.provider.version()
            except ProviderError as exc:
                return {"reachable": False, "version": None, "error": str(exc)}
            return {"reachable": True, "version": version, "error": None}

        return dict(self._runner.run(read(), 30))

    def pull_model(self, name: str) -> dict[str, Any]:
        """Start pulling a model; progress arrives as ``pull_progress`` events."""
        name = name.strip()
        if not name:
            raise InvalidRequest("name the model to pull, e.g. qwen3:8b")

        async def pull() -> None:
            try:
                async for progress in self.provider.pull(name):
                    self.bus.publish(
                        PullProgressEvent(
                            model=name,
                            status=progress.status,
                            completed=progress.completed,
                            total=progress.total,
                            done=progress.status == "success",
                        )
                    )
            except ProviderError as exc:
                self.bus.publish(
                    PullProgressEvent(model=name, status="error", done=True, error=str(exc))
                )
                return
            result = await self._models()
            self.bus.publish(ModelsUpdated(models=result["models"], error=result["error"]))

        def start() -> dict[str, Any]:
            asyncio.get_running_loop().create_task(pull())
            return {"started": True, "model": name}

        return dict(self._run(start))

    # ---- settings and secrets ---------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    def get_settings(self) -> dict[str, Any]:
        data = self._settings.model_dump()
        data["api_key_set"] = bool(self.secrets and self.secrets.get(self._settings.endpoint))
        data["keyring_usable"] = bool(self.secrets and self.secrets.usable)
        return data

    def update_settings(self, patch: dict[str, Any]) -> dict[str, Any]:
        """Validate and apply a partial change; when any field is invalid nothing changes and
        ``InvalidSettings`` says which fields and why."""

        async def apply() -> dict[str, Any]:
            unknown = sorted(set(patch) - set(Settings.model_fields))
            if unknown:
                errors = {name: "unknown setting" for name in unknown}
                raise self._invalid(errors)
            try:
                updated = Settings.model_validate({**self._settings.model_dump(), **patch})
            except ValidationError as exc:
                errors = {".".join(str(p) for p in e["loc"]): e["msg"] for e in exc.errors()}
                raise self._invalid(errors) from None
            old = self._settings
            self._settings = updated
            self._broker.timeout = updated.confirmation_timeout
            if (old.provider, old.endpoint) != (updated.provider, updated.endpoint):
                await self._reset_provider()
            self._mcp.apply(updated)  # servers added, changed or removed: returns at once
            if self._persist:
                save_settings(updated, self.paths.settings_file)
            self.bus.publish(SettingsUpdated(settings=updated.model_dump()))
            return {"settings": updated.model_dump()}

        return dict(self._runner.run(apply()))

    def _invalid(self, errors: dict[str, str]) -> InvalidSettings:
        text = "; ".join(f"{name}: {why}" for name, why in errors.items())
        return InvalidSettings(
            f"not saved: {text}", errors=errors, settings=self._settings.model_dump()
        )

    def set_api_key(self, key: str | None, *, endpoint: str | None = None) -> dict[str, Any]:
        """Keep an endpoint's API key in the OS keyring (or for this session only)."""

        async def apply() -> dict[str, Any]:
            if self.secrets is None:
                raise Unsupported("no secret store is available here")
            target = endpoint or self._settings.endpoint
            if key:
                self.secrets.set(target, key)
            else:
                self.secrets.delete(target)
            await self._reset_provider()
            return {
                "stored_in_keyring": self.secrets.usable,
                "warning": None if self.secrets.usable else self.secrets.reason,
            }

        return dict(self._runner.run(apply()))

    # ---- undo -------------------------------------------------------------------------------

    def undo_last(self) -> dict[str, Any]:
        """Undo the agent's most recent change to a file or folder."""
        return self._undo(None)

    def undo(self, call_id: str) -> dict[str, Any]:
        """Undo the change of one tool call (a card's Undo button)."""
        return self._undo(call_id)

    def undo_change(self, change_id: str) -> dict[str, Any]:
        """Undo one change by its number in ``changes()`` (or its entry or call id)."""
        return self._undo(None, change_id)

    def changes(self) -> list[dict[str, Any]]:
        """What the agent changed, newest first, from every process on this data folder."""
        return list(self._run(lambda: self._factory.journal().entries()))

    def _undo(self, call_id: str | None, change_id: str | None = None) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            journal = self._factory.journal()
            if change_id is not None:
                result = journal.undo_change(change_id)
            else:
                result = journal.undo_last() if call_id is None else journal.undo(call_id)
            if not result.get("success"):
                why = str(result.get("error") or "nothing to undo")
                raise NotFound(why) if result.get("missing") else UndoFailed(why)
            self.bus.publish(
                UndoApplied(
                    call_id=result.get("call_id"),
                    path=result.get("path"),
                    action=str(result.get("action", "")),
                )
            )
            return dict(result)

        return dict(self._run(run))
