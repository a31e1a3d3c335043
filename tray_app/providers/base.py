"""What every provider speaks: requests, stream items and model facts.

The messages themselves live in ``tray_app.base.messages``. The agent loop talks only to these
types; each provider turns them into its wire format and translates its transport errors into
``tray_app.base.errors``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tray_app.base.messages import ChatMessage, ToolCall


class ChatRequest(BaseModel):
    """A provider-neutral request. ``tools``/``think`` are already filtered by capability."""

    model: str
    messages: list[ChatMessage]
    tools: list[dict[str, Any]] | None = None
    think: bool | None = None
    temperature: float | None = None
    num_ctx: int | None = None
    keep_alive: str | None = None
    #: The most tokens the answer may have (Ollama ``num_predict``, OpenAI ``max_tokens``).
    max_tokens: int | None = None


class StreamDelta(BaseModel):
    """A piece of thinking or answer text, in arrival order."""

    kind: Literal["thinking", "content"]
    text: str


class StreamStats(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_ms: float | None = None
    load_ms: float | None = None
    eval_ms: float | None = None


#: ``done_reason`` of a stream that ended without the server's end marker. Its tool calls are
#: left out: a call from an answer the server did not finish is not run.
INCOMPLETE = "incomplete"


class StreamDone(BaseModel):
    """The last item of a stream: the complete tool calls and what the server reported."""

    tool_calls: list[ToolCall] = Field(default_factory=list)
    done_reason: str | None = None
    stats: StreamStats = Field(default_factory=StreamStats)


class ProviderNotice(BaseModel):
    """Something the user should see while the stream waits, not text of the answer.

    ``code="retrying"``: the server answered ``status`` (429/503) and asked to wait; the provider
    waits ``retry_in_s`` seconds before attempt ``attempt`` of ``attempts`` retries.
    """

    model_config = ConfigDict(defer_build=True)  # built at the first busy answer

    code: Literal["retrying"] = "retrying"
    status: int
    retry_in_s: float
    attempt: int
    attempts: int
    message: str


StreamItem = StreamDelta | StreamDone | ProviderNotice


class ModelInfo(BaseModel):
    name: str
    capabilities: list[str] = Field(default_factory=list)
    context_length: int | None = None
    size: int | None = None
    parameter_size: str | None = None
    family: str | None = None
    quantization: str | None = None

    def supports(self, capability: str) -> bool:
        return capability in self.capabilities


class PullProgress(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built at the first pull, never in a chat

    status: str
    digest: str | None = None
    total: int | None = None
    completed: int | None = None


class Provider(Protocol):
    """A model server. Streams are async iterators; cancelling them closes the HTTP response."""

    kind: str
    endpoint: str

    def chat(self, request: ChatRequest) -> AsyncIterator[StreamItem]: ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def model_info(self, model: str) -> ModelInfo: ...

    async def version(self) -> str: ...

    def pull(self, model: str) -> AsyncIterator[PullProgress]: ...

    async def aclose(self) -> None: ...
