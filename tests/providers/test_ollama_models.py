"""Model facts from Ollama: tags, show (capabilities, context length, caching), version, pull."""

from __future__ import annotations

import pytest

from tests.fakes.ollama_server import FakeOllama
from tray_app.base.errors import ModelNotFound, StreamError
from tray_app.providers.ollama import OllamaProvider


async def test_list_models_from_tags(fake_ollama: FakeOllama, ollama: OllamaProvider) -> None:
    models = {m.name: m for m in await ollama.list_models()}
    assert set(models) == {"qwen3:8b", "gemma3:4b", "llama3.2:latest"}
    qwen = models["qwen3:8b"]
    assert (qwen.family, qwen.parameter_size, qwen.quantization) == ("qwen3", "8.0B", "Q4_K_M")
    assert qwen.size is not None and qwen.size > 0
    assert qwen.capabilities == [], "classic /api/tags does not list capabilities"


async def test_model_info_has_capabilities_and_context_length() -> None:
    with FakeOllama({"qwen3:8b": ["completion", "tools", "thinking"]}, context_length=8192) as fake:
        provider = OllamaProvider(fake.url)
        info = await provider.model_info("qwen3:8b")
        await provider.aclose()
    assert info.capabilities == ["completion", "tools", "thinking"]
    assert info.supports("tools") and not info.supports("vision")
    assert info.context_length == 8192
    assert info.family == "qwen3"


async def test_model_info_is_cached_until_invalidated(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    first = await ollama.model_info("gemma3:4b")
    second = await ollama.model_info("gemma3:4b")
    assert second == first
    assert len(fake_ollama.requests_to("/api/show")) == 1

    await ollama.model_info("llama3.2")
    assert len(fake_ollama.requests_to("/api/show")) == 2

    fake_ollama.add_model("gemma3:4b", ["completion", "vision", "tools"])
    ollama.invalidate("gemma3:4b")
    assert (await ollama.model_info("gemma3:4b")).supports("tools")
    await ollama.model_info("llama3.2")
    assert len(fake_ollama.requests_to("/api/show")) == 3, "only the invalidated model is asked"

    ollama.invalidate()
    await ollama.model_info("llama3.2")
    assert len(fake_ollama.requests_to("/api/show")) == 4


async def test_model_info_for_an_unknown_model(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await ollama.model_info("mistral:7b")
    assert caught.value.model == "mistral:7b"
    assert str(caught.value) == "model 'mistral:7b' not found"


async def test_version() -> None:
    with FakeOllama(version="0.33.0") as fake:
        provider = OllamaProvider(fake.url + "/")
        assert await provider.version() == "0.33.0"
        await provider.aclose()
    assert provider.endpoint == fake.url, "a trailing slash is dropped"


async def test_pull_streams_progress_and_refreshes_the_model(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    with pytest.raises(ModelNotFound):
        await ollama.model_info("phi4:14b")

    progress = [p async for p in ollama.pull("phi4:14b")]

    statuses = [p.status for p in progress]
    assert statuses[0] == "pulling manifest"
    assert statuses[-3:] == ["verifying sha256 digest", "writing manifest", "success"]
    layer = [p for p in progress if p.status == "pulling dde5aa3fc5ff"]
    assert [p.completed for p in layer] == [None, 1009688688, 2019377376]
    assert {p.total for p in layer} == {2019377376}
    assert all(p.digest and p.digest.startswith("sha256:") for p in layer)
    assert fake_ollama.requests_to("/api/pull")[0].body == {"model": "phi4:14b", "stream": True}
    assert (await ollama.model_info("phi4:14b")).capabilities == ["completion"]


async def test_pull_error_line_raises_after_the_progress_so_far(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.pull_error = "pull model manifest: file does not exist"
    seen: list[str] = []
    with pytest.raises(StreamError, match=r"^pull model manifest: file does not exist$"):
        async for progress in ollama.pull("nope:1b"):
            seen.append(progress.status)
    assert seen == ["pulling manifest"]
