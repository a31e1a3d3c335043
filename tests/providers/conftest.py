"""Provider fixtures over the fake servers (``fake_ollama``/``fake_openai`` come from
``tests.fakes.plugin``, loaded by tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes._server import FakeServer
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tray_app.providers.base import Provider
from tray_app.providers.ollama import OllamaProvider
from tray_app.providers.openai import OpenAIProvider


@pytest.fixture
async def ollama(fake_ollama: FakeOllama) -> AsyncIterator[OllamaProvider]:
    provider = OllamaProvider(fake_ollama.url)
    yield provider
    await provider.aclose()


@pytest.fixture
async def openai(fake_openai: FakeOpenAI) -> AsyncIterator[OpenAIProvider]:
    provider = OpenAIProvider(fake_openai.url)
    yield provider
    await provider.aclose()


@pytest.fixture(params=["ollama", "openai"])
async def served(request: pytest.FixtureRequest) -> AsyncIterator[tuple[FakeServer, Provider]]:
    """A fake server and a provider talking to it, once per provider kind."""
    fake: FakeServer = FakeOllama() if request.param == "ollama" else FakeOpenAI()
    with fake:
        provider: Provider = (
            OllamaProvider(fake.url) if request.param == "ollama" else OpenAIProvider(fake.url)
        )
        try:
            yield fake, provider
        finally:
            await provider.aclose()
