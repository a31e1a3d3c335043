"""A fake OpenAI-compatible server: ``/v1/chat/completions`` as Server-Sent Events, ``/v1/models``.

Chunks follow ``tests/fakes/wire/openai_sse_tool_call.txt``: ``role`` in the first
delta, tool calls as a header delta (``index``, ``id``, ``type``, ``name``, ``arguments: ""``)
followed by argument fragments, a finish chunk with ``delta: {}``, a usage chunk with
``choices: []`` when ``stream_options.include_usage`` asks for it, then ``data: [DONE]``.
``tool_call_style="whole"`` sends each call complete in one delta, like Ollama's ``/v1``.
``same_index=True`` gives every call ``index: 0`` (distinct ids), as Ollama's ``/v1`` and some
gateways stream parallel calls (ollama/ollama#15457, ai-dynamo/dynamo#4723).

``mistral_ids=True`` answers HTTP 400 to a history whose tool-call ids are not exactly nine
letters or digits, with the message Mistral-family servers send (mistral_common's validator via
vLLM --tokenizer-mode mistral: vllm-project/vllm#9019, #12332; jackmpcollins/magentic#276).

With ``api_key`` set, every request must carry ``Authorization: Bearer <key>`` or gets a 401
in OpenAI's error shape; ``all_requests[i].header("authorization")`` shows what was sent. The
same ``Turn`` builders as for ``FakeOllama`` script the answers; an empty script is an HTTP 500.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from typing import Any, Literal

from tests.fakes._server import FakeServer, RecordedRequest, Reply, filled, registry_name
from tests.fakes.mistral_ids import mistral_id_problem
from tests.fakes.ollama_server import DEFAULT_MODELS
from tests.fakes.turns import (
    FILLER,
    Turn,
    busy_turn,
    drop_turn,
    endless_turn,
    eof_turn,
    error_turn,
    fixture_turn,
    hold_open_turn,
    huge_error_turn,
    long_event_turn,
    long_line_turn,
    midstream_error_turn,
    raw_turn,
    slow_turn,
    text_turn,
    tool_turn,
)

__all__ = [
    "FakeOpenAI",
    "Turn",
    "busy_turn",
    "drop_turn",
    "endless_turn",
    "eof_turn",
    "error_turn",
    "fixture_turn",
    "hold_open_turn",
    "huge_error_turn",
    "long_event_turn",
    "long_line_turn",
    "midstream_error_turn",
    "raw_turn",
    "slow_turn",
    "text_turn",
    "tool_turn",
]

SSE = "text/event-stream; charset=utf-8"
_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 404: "not_found_error"}


def sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def error_body(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class FakeOpenAI(FakeServer):
    name = "FakeOpenAI"
    chat_path = "/v1/chat/completions"

    def __init__(
        self,
        models: dict[str, list[str]] | None = None,
        *,
        api_key: str | None = None,
        reasoning_field: Literal["reasoning_content", "reasoning"] = "reasoning_content",
        tool_call_style: Literal["fragmented", "whole"] = "fragmented",
        same_index: bool = False,
        mistral_ids: bool = False,
        default_turn: Turn | None = None,
    ) -> None:
        default = {"gpt-4o-mini": ["completion", "tools", "vision"], **DEFAULT_MODELS}
        super().__init__(default if models is None else models, default_turn=default_turn)
        self.api_key = api_key
        self.reasoning_field = reasoning_field
        self.tool_call_style = tool_call_style
        self.same_index = same_index
        self.mistral_ids = mistral_ids
        self._ids = itertools.count(1)

    def handle(self, request: RecordedRequest, reply: Reply) -> None:
        if self.api_key and request.header("authorization") != f"Bearer {self.api_key}":
            message = "Incorrect API key provided. You can find your API key in your account."
            reply.json(401, error_body(401, message, "invalid_api_key"))
            return
        route = (request.method, request.path)
        if route == ("GET", "/v1/models"):
            data = [
                {"id": name, "object": "model", "created": 1_700_000_000, "owned_by": "fake"}
                for name in list(self.models)
            ]
            reply.json(200, {"object": "list", "data": data})
        elif route == ("POST", self.chat_path):
            self._chat(request.body if isinstance(request.body, dict) else {}, reply)
        else:
            reply.json(
                404, error_body(404, f"Unknown request URL: {request.method} {request.path}")
            )

    def _chat(self, body: dict[str, Any], reply: Reply) -> None:
        model = str(body.get("model") or "")
        key = self.find_model(model) if model else None
        if key is None:
            reply.json(404, error_body(404, f"model '{model}' not found", "model_not_found"))
            return
        if body.get("tools") and "tools" not in self.models[key]:
            reply.json(400, error_body(400, f"{registry_name(model)} does not support tools"))
            return
        bad_id = mistral_id_problem(body.get("messages")) if self.mistral_ids else None
        if bad_id is not None:
            reply.json(400, error_body(400, bad_id))
            return
        turn = self.next_turn()
        if turn is not None:
            turn = self.without_tools(turn, body, self.models[key])
        if turn is None:
            reply.json(500, error_body(500, self.script_exhausted()))
        elif turn.kind == "http_error":
            reply.json(turn.status, error_body(turn.status, turn.error), turn.headers)
        elif turn.kind == "huge_error":
            self.serve_huge_error(reply, turn)
        elif turn.kind == "raw":
            self.serve_raw(reply, turn, SSE)
        elif body.get("stream") is not True:
            reply.json(200, self._completion(turn, model))
        else:
            self.serve_stream(reply, 200, SSE, self._stream(turn, model, body))

    # -- rendering -------------------------------------------------------------------------

    def _call_id(self, explicit: str | None, turn: Turn) -> str | None:
        if explicit is not None:
            return explicit
        return f"call_{next(self._ids):024d}" if turn.with_ids else None

    def _calls_whole(self, turn: Turn) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        for index, call in enumerate(turn.calls):
            call_id = self._call_id(call.id, turn)
            entry: dict[str, Any] = {"index": 0 if self.same_index else index}
            entry.update({"id": call_id} if call_id else {})
            function = {"name": call.name, "arguments": call.arguments_text()}
            calls.append({**entry, "type": "function", "function": function})
        return calls

    def _call_deltas(self, turn: Turn) -> list[dict[str, Any]]:
        if turn.on_done_chunk:
            return []
        if self.tool_call_style == "whole":
            return [{"tool_calls": [call]} for call in self._calls_whole(turn)]
        deltas: list[dict[str, Any]] = []
        for call in self._calls_whole(turn):
            text = call["function"]["arguments"]
            head = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
            deltas.append({"tool_calls": [head]})
            for i in range(0, len(text), 6):
                fragment = {"index": call["index"], "function": {"arguments": text[i : i + 6]}}
                deltas.append({"tool_calls": [fragment]})
        return deltas

    def _usage(self, body: dict[str, Any], completion_tokens: int) -> dict[str, int]:
        prompt = max(1, len(json.dumps(body.get("messages", []))) // 4)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt + completion_tokens,
        }

    def _stream(
        self, turn: Turn, model: str, body: dict[str, Any]
    ) -> Iterator[bytes | float | None]:
        usage_wanted = bool((body.get("stream_options") or {}).get("include_usage"))
        base = {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_fake",
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return sse({**base, "choices": [choice], **({"usage": None} if usage_wanted else {})})

        deltas: list[dict[str, Any]] = [
            {self.reasoning_field: p} for p in turn.pieces(turn.thinking)
        ]
        deltas += [{"content": piece} for piece in turn.pieces(turn.content)]
        deltas += self._call_deltas(turn)
        deltas = deltas or [{"content": ""}]
        head: dict[str, Any] = {"role": "assistant"}
        if "tool_calls" in deltas[0]:
            head["content"] = None  # what OpenAI sends when the answer starts with a call
        deltas[0] = {**head, **deltas[0]}
        for number, delta in enumerate(deltas):
            if number and turn.delay:
                yield turn.delay
            yield chunk(delta)
        if turn.ending == "error":
            yield sse(
                {
                    "error": {
                        "message": turn.error,
                        "type": "server_error",
                        "param": None,
                        "code": None,
                    }
                }
            )
            return
        if turn.ending == "drop":
            yield None
            return
        if turn.ending == "eof":
            return
        if turn.ending == "long_line":
            yield from filled(b"data: ", turn.size)
            return
        if turn.ending == "long_event":
            line = b"data: " + FILLER[:65000] + b"\n"
            for _ in range(-(-turn.size // len(line))):
                yield line
            return
        if turn.ending == "endless":
            while True:
                if turn.delay:
                    yield turn.delay
                yield chunk({"content": turn.content})
        if turn.delay:
            yield turn.delay
        final: dict[str, Any] = (
            {"tool_calls": self._calls_whole(turn)} if turn.on_done_chunk else {}
        )
        yield chunk(final, "tool_calls" if turn.calls else turn.done_reason)
        if turn.done_marker:
            if usage_wanted:
                yield sse({**base, "choices": [], "usage": self._usage(body, len(deltas))})
            yield b"data: [DONE]\n\n"
        if turn.hold_open:
            yield turn.hold_open  # the connection stays open (until the client hangs up)

    def _completion(self, turn: Turn, model: str) -> dict[str, Any]:
        """The answer to a request without ``"stream": true``: one whole object."""
        message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
        if turn.thinking:
            message[self.reasoning_field] = turn.thinking
        if turn.calls:
            message["tool_calls"] = [
                {k: v for k, v in call.items() if k != "index"} for call in self._calls_whole(turn)
            ]
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if turn.calls else turn.done_reason,
                }
            ],
            "usage": self._usage({}, 1 + len(turn.content) // 4),
        }
