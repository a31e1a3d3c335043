"""Pytest fixtures for the fake model servers: ``fake_ollama`` and ``fake_openai``.

Each test gets its own started server on a random loopback port; it is stopped afterwards,
which also ends any stream still running. Enable with ``pytest_plugins = ["tests.fakes.plugin"]``.
For other settings (models, version, API key) build one in the test: ``with FakeOllama(...) as
fake:``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A running ``FakeOllama`` with the default models; script it with ``.script(...)``."""
    with FakeOllama() as server:
        yield server


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running ``FakeOpenAI`` without an API key, fragmenting tool-call arguments like OpenAI."""
    with FakeOpenAI() as server:
        yield server
