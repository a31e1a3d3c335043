"""Provider fixtures. The fake servers' fixtures are borrowed from ``tests.fakes.plugin`` until
tests/conftest.py loads that plugin for everyone."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.plugin import fake_ollama, fake_openai
from tray_app.providers.ollama import OllamaProvider
from tray_app.providers.openai import OpenAIProvider

__all__ = ["fake_ollama", "fake_openai"]


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
