"""The model server: the provider made from the current settings, its models, pulls and key.

The provider is made on first need and closed and made again when the server or its API key
changes. A server that cannot be reached is an answer here (``error`` in the model list,
``reachable: false``), not a failure: the onboarding screen and the tray show it. Runs on the
core thread only.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from tray_app.agent.tool_modes import model_key, tool_check, tool_mode
from tray_app.base.errors import (
    InvalidRequest,
    ModelNotFound,
    ProviderError,
    Unsupported,
    error_code,
)
from tray_app.base.events import Event, ModelsUpdated, PullProgressEvent
from tray_app.core.model_check import check_model_tools, stored_finding
from tray_app.core.results import (
    ApiKeySaved,
    Json,
    ModelList,
    PullStarted,
    ServerStatus,
    ToolCheckDone,
)
from tray_app.core.settings_service import Secrets, SettingsService
from tray_app.providers.base import ModelInfo, Provider
from tray_app.providers.factory import make_provider
from tray_app.store.settings import Settings, ToolMode

if TYPE_CHECKING:
    from tray_app.store.secrets import SecretStore

ProviderFactory = Callable[[Settings, Callable[[Settings], "str | None"]], Provider]


def default_provider_factory(
    settings: Settings, api_key: Callable[[Settings], str | None]
) -> Provider:
    """Ollama needs no key; an OpenAI-compatible server's is looked up (``Secrets.api_key``:
    the keyring only when one was stored there)."""
    return make_provider(
        settings.provider,
        settings.endpoint,
        api_key=api_key(settings) if settings.provider == "openai" else None,
        vision_models=settings.vision_models,
    )


def with_tool_mode(info: ModelInfo, settings: Settings) -> Json:
    """A model for the page: its facts, the tool mode in force (``tool_mode``), whether someone
    chose it (``tool_mode_chosen``) and what a check found (``tool_check``)."""
    choice = tool_mode(info, settings)
    return {
        **info.model_dump(),
        "tool_mode": choice.mode,
        "tool_mode_chosen": choice.chosen,
        "tool_check": tool_check(info.name, settings),
    }


class ModelService:
    def __init__(
        self,
        settings: SettingsService,
        secrets: Secrets,
        factory: ProviderFactory,
        publish: Callable[[Event], None],
    ) -> None:
        self._settings = settings
        self._secrets = secrets
        self._factory = factory
        self._publish = publish
        self._provider: Provider | None = None
        self._pulls: set[asyncio.Task[None]] = set()
        settings.listen(self._settings_changed)

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = self._factory(self._settings.current, self._secrets.api_key)
        return self._provider

    async def reset(self) -> None:
        """Close the provider; the next use makes one from the settings in force."""
        if self._provider is not None:
            await self._provider.aclose()
        self._provider = None

    async def _settings_changed(self, old: Settings, new: Settings) -> None:
        if (old.provider, old.endpoint, old.vision_models) != (
            new.provider,
            new.endpoint,
            new.vision_models,
        ):
            await self.reset()

    async def _read_models(self) -> ModelList:
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
            update = {"capabilities": info.capabilities, "context_length": info.context_length}
            detailed.append(model.model_copy(update=update))
        settings = self._settings.current
        return {"models": [with_tool_mode(m, settings) for m in detailed], "error": None}

    async def list_models(self) -> ModelList:
        """Installed models with their capabilities, or the reason there are none."""
        result = await self._read_models()
        self._publish(ModelsUpdated(models=result["models"], error=result["error"]))
        return result

    async def server_status(self) -> ServerStatus:
        """Whether the server answers, and its version (the onboarding screen's check)."""
        try:
            version = await self.provider.version()
        except ProviderError as exc:
            return {
                "reachable": False,
                "version": None,
                "error": str(exc),
                "code": error_code(exc),
            }
        return {"reachable": True, "version": version, "error": None, "code": None}

    def pull(self, name: str) -> PullStarted:
        """Start pulling a model; progress arrives as ``pull_progress`` events."""
        name = name.strip()
        if not name:
            raise InvalidRequest("name the model to pull, e.g. qwen3:8b")
        task = asyncio.get_running_loop().create_task(self._pull(name))
        self._pulls.add(task)  # a task nobody holds may be collected mid-way
        task.add_done_callback(self._pulls.discard)
        return {"started": True, "model": name}

    async def _pull(self, name: str) -> None:
        try:
            async for progress in self.provider.pull(name):
                self._publish(
                    PullProgressEvent(
                        model=name,
                        status=progress.status,
                        completed=progress.completed,
                        total=progress.total,
                        done=progress.status == "success",
                    )
                )
        except ProviderError as exc:
            self._publish(
                PullProgressEvent(
                    model=name,
                    status="error",
                    done=True,
                    error=str(exc),
                    error_code="model_not_found" if _not_found(exc) else None,
                )
            )
            return
        await self.list_models()

    async def pick_model(self) -> str:
        """No model chosen anywhere: the first installed one that can use tools, else the first.
        Raises ProviderError when the server cannot list them ("" means none is installed)."""
        models = await self.provider.list_models()
        for model in models:
            try:
                if (await self.provider.model_info(model.name)).supports("tools"):
                    return model.name
            except ProviderError:
                continue
        return models[0].name if models else ""

    async def set_tool_mode(self, name: str, mode: ToolMode | None) -> ModelList:
        """Choose how ``name`` is offered the tools (None: automatic again); the new list."""
        if not name.strip():
            raise InvalidRequest("name the model")
        key = model_key(name)
        modes = dict(self._settings.current.model_tool_modes)
        if mode is None:
            modes.pop(key, None)
        else:
            modes[key] = mode
        await self._settings.update({"model_tool_modes": modes})
        return await self.list_models()

    async def check_tools(self, name: str, language: str) -> ToolCheckDone:
        """Send ``name`` one small tool request (``model_check``), store what it did and the
        mode that follows, and say so."""
        if not name.strip():
            raise InvalidRequest("name the model to check")
        finding = await check_model_tools(self.provider, name, self._settings.current, language)
        # the check took a while: the patch merges into the settings in force now
        patch = stored_finding(self._settings.current, name, finding)
        await self._settings.update(patch)
        await self.list_models()
        mode = patch["model_tool_modes"][model_key(name)]
        return {"model": name, "result": finding.result, "tool_mode": mode}

    def store_api_key(self, key: str | None, endpoint: str | None) -> tuple[str, SecretStore]:
        """Keep an endpoint's API key in the OS keyring (or for this session only); any thread
        but the core loop's: storing may ask the user to unlock the keyring, or to choose a
        password for a new one, and waits for the answer."""
        secrets = self._secrets.get()
        if secrets is None:
            raise Unsupported("no secret store is available here")
        target = endpoint or self._settings.current.endpoint
        if key:
            secrets.set(target, key)
        else:
            secrets.delete(target)
        return target, secrets

    async def api_key_stored(self, endpoint: str, secrets: SecretStore, kept: bool) -> ApiKeySaved:
        """After ``store_api_key`` (core loop): the settings record whether the keyring holds
        the endpoint's key, so only then is it ever read; the provider takes the new key."""
        await self._settings.mark_api_key(endpoint, kept and secrets.usable)
        await self.reset()
        return {
            "stored_in_keyring": secrets.usable,
            "warning": None if secrets.usable else secrets.reason,
            "problem": None if secrets.usable else secrets.problem,
        }


# Ollama's words for a name its library does not have: "pull model manifest: file does not
# exist" (0.1-0.12), "manifest unknown" from a registry, or a bare "not found".
_NOT_FOUND_WORDS = re.compile(r"file does not exist|manifest unknown|not found", re.IGNORECASE)


def _not_found(exc: ProviderError) -> bool:
    """Whether a failed pull means the server knows no model of that name."""
    return isinstance(exc, ModelNotFound) or bool(_NOT_FOUND_WORDS.search(str(exc)[:500]))
