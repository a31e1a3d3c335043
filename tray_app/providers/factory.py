"""Build the provider the settings ask for."""

from __future__ import annotations

from tray_app.errors import ConfigError
from tray_app.providers.base import Provider
from tray_app.providers.ollama import OllamaProvider

KINDS = ("ollama", "openai")


def make_provider(kind: str, endpoint: str, *, api_key: str | None = None) -> Provider:
    """``kind`` is ``"ollama"`` or ``"openai"``; ``api_key`` is only used by the latter."""
    if kind == "ollama":
        return OllamaProvider(endpoint)
    if kind == "openai":
        from tray_app.providers.openai import OpenAIProvider  # only when chosen

        return OpenAIProvider(endpoint, api_key=api_key)
    raise ConfigError(f"Unknown provider {kind!r}: use one of {', '.join(KINDS)}.")
