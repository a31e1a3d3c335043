"""Build the provider the settings ask for."""

from __future__ import annotations

from collections.abc import Iterable

from tray_app.base.errors import ConfigError
from tray_app.providers.base import Provider
from tray_app.providers.ollama import OllamaProvider

KINDS = ("ollama", "openai")


def make_provider(
    kind: str,
    endpoint: str,
    *,
    api_key: str | None = None,
    vision_models: Iterable[str] = (),
) -> Provider:
    """``kind`` is ``"ollama"`` or ``"openai"``; ``api_key`` and ``vision_models`` (the models
    the user says can see images) are only used by the latter: Ollama reports both itself."""
    if kind == "ollama":
        return OllamaProvider(endpoint)
    if kind == "openai":
        from tray_app.providers.openai import OpenAIProvider  # only when chosen

        return OpenAIProvider(endpoint, api_key=api_key, vision_models=vision_models)
    raise ConfigError(f"Unknown provider {kind!r}: use one of {', '.join(KINDS)}.")
