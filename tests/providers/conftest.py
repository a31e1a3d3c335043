"""Provider fixtures. The fake servers' fixtures are borrowed from ``tests.fakes.plugin`` until
tests/conftest.py loads that plugin for everyone."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.plugin import fake_ollama
from tray_app.providers.ollama import OllamaProvider

__all__ = ["fake_ollama"]


@pytest.fixture
async def ollama(fake_ollama: FakeOllama) -> AsyncIterator[OllamaProvider]:
    provider = OllamaProvider(fake_ollama.url)
    yield provider
    await provider.aclose()
