"""Provider fixtures over the fake servers (``fake_ollama``/``fake_openai`` come from
``tests.fakes.plugin``, loaded by tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
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
