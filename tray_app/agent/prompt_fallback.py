"""A server that refuses tools only when asked: the same answer again, with the tools in the
prompt.

Ollama says beforehand which models take tools; an OpenAI-compatible server cannot be asked,
so every model is assumed to (``providers/openai.py``) until one answers HTTP 400 "does not
support tools" (Ollama's ``/v1`` does, for gemma3 and imported models). Without this the turn
failed and only the next one used prompt mode. Here that refusal, before anything streamed, is
answered at once: the request goes again without ``tools``, the tools described in its system
prompt and its history shaped as text (``prompt_tools``), in the same message, and the turn
stays in prompt mode for its later rounds.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing

from tray_app.agent.prompt_tools import prompt_history
from tray_app.base.errors import CapabilityError
from tray_app.base.messages import ChatMessage
from tray_app.providers.base import ChatRequest, ModelInfo, Provider, PullProgress, StreamItem


def prompt_request(request: ChatRequest, system: ChatMessage | None) -> ChatRequest:
    """``request`` in prompt mode: no ``tools``, ``system`` first, the history as text."""
    rest = request.messages
    if rest and rest[0].role == "system":
        rest = rest[1:]
    head = [system] if system is not None else []
    return request.model_copy(update={"tools": None, "messages": prompt_history([*head, *rest])})


class PromptFallback:
    """``provider`` with one difference: a request whose tools it refuses is sent again in
    prompt mode (``switched`` says it happened)."""

    def __init__(self, provider: Provider, system: ChatMessage | None) -> None:
        self.provider = provider
        self.system = system
        self.switched = False
        self.kind = provider.kind
        self.endpoint = provider.endpoint

    def chat(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        return self._chat(request)

    async def _chat(self, request: ChatRequest) -> AsyncGenerator[StreamItem, None]:
        started = False
        try:
            async with aclosing(self.provider.chat(request)) as stream:  # type: ignore[type-var]
                async for item in stream:
                    started = True
                    yield item
            return
        except CapabilityError as exc:
            if exc.capability != "tools" or started or not request.tools:
                raise
        self.switched = True
        again = prompt_request(request, self.system)
        async with aclosing(self.provider.chat(again)) as stream:  # type: ignore[type-var]
            async for item in stream:
                yield item

    async def list_models(self) -> list[ModelInfo]:
        return await self.provider.list_models()

    async def model_info(self, model: str) -> ModelInfo:
        return await self.provider.model_info(model)

    async def version(self) -> str:
        return await self.provider.version()

    def pull(self, model: str) -> AsyncIterator[PullProgress]:
        return self.provider.pull(model)

    async def aclose(self) -> None:
        """The provider belongs to the caller: nothing of its own to close."""
