"""A fake Ollama: a real HTTP server on 127.0.0.1 that speaks the native ``/api`` protocol.

Chunks are shaped like real Ollama's (``tests/fakes/wire``): Go field order,
``created_at`` in RFC3339Nano, ``<``, ``>`` and ``&`` escaped the way Go escapes them, content in
small pieces, a ``done`` chunk with ``done_reason`` and metrics. Requests are checked like real
Ollama checks them: an unknown model is a 404, ``tools`` for a model without the ``tools``
capability and ``think`` for one without ``thinking`` are 400s with the real messages, so a
client that forgets to degrade is caught.

When the script is empty, ``/api/chat`` answers HTTP 500 with an error that says so (unless a
``default_turn`` was given): a loop that asks the model once more than the test expected fails
loudly instead of getting a plausible answer.

    with FakeOllama() as fake:
        fake.script(tool_turn([("read_file", {"path": "a.txt"})]), text_turn("Done."))
        ...  # point the app at fake.url
        assert fake.chat_requests[1]["messages"][-1]["role"] == "tool"
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import time
from collections.abc import Iterator
from typing import Any

from tests.fakes._server import FakeServer, RecordedRequest, Reply, filled, registry_name
from tests.fakes.mistral_ids import mistral_id_problem
from tests.fakes.turns import (
    CallSpec,
    Turn,
    busy_turn,
    drop_turn,
    endless_turn,
    eof_turn,
    error_turn,
    fixture_turn,
    hold_open_turn,
    huge_error_turn,
    long_line_turn,
    midstream_error_turn,
    raw_turn,
    slow_turn,
    text_turn,
    tool_turn,
)

__all__ = [
    "DEFAULT_MODELS",
    "FakeOllama",
    "Turn",
    "busy_turn",
    "drop_turn",
    "endless_turn",
    "eof_turn",
    "error_turn",
    "fixture_turn",
    "hold_open_turn",
    "huge_error_turn",
    "long_line_turn",
    "midstream_error_turn",
    "raw_turn",
    "slow_turn",
    "text_turn",
    "tool_turn",
]

DEFAULT_MODELS: dict[str, list[str]] = {
    "qwen3:8b": ["completion", "tools", "thinking"],
    "gemma3:4b": ["completion", "vision"],
    "llama3.2": ["completion", "tools"],
}
NDJSON = "application/x-ndjson"
_PULL_LAYERS = [("dde5aa3fc5ff", 2019377376), ("966de95ca8a6", 1429), ("fcc5a6bec9da", 7711)]


def go_json(obj: Any) -> bytes:
    """One NDJSON line as Go's ``json.Marshal`` writes it (HTML characters escaped)."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text.encode() + b"\n"


def created_at() -> str:
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    fraction = f"{nanos:09d}".rstrip("0")
    return f"{stamp}.{fraction}Z" if fraction else f"{stamp}Z"


def architecture(model: str) -> str:
    base = model.rsplit("/", 1)[-1].split(":", 1)[0]
    match = re.match(r"[A-Za-z]+\d*", base)
    return match.group(0).lower() if match else "llama"


def _parameter_size(model: str) -> str:
    match = re.search(r":(\d+(?:\.\d+)?)b\b", model.lower())
    return f"{float(match.group(1)):.1f}B" if match else "3.2B"


class FakeOllama(FakeServer):
    name = "FakeOllama"
    chat_path = "/api/chat"

    def __init__(
        self,
        models: dict[str, list[str]] | None = None,
        *,
        version: str = "0.12.10",
        context_length: int = 40960,
        mistral_ids: bool = False,
        default_turn: Turn | None = None,
    ) -> None:
        super().__init__(DEFAULT_MODELS if models is None else models, default_turn=default_turn)
        self.version = version
        self.context_length = context_length
        self.mistral_ids = mistral_ids  # 400 on tool-call ids a Mistral template refuses
        self.pull_error: str | None = None  # set to make /api/pull fail after the manifest
        self.tags_size = 0  # set to make /api/tags answer a (generated) body of this many bytes
        self._call_ids = itertools.count(1)

    # -- routes ----------------------------------------------------------------------------

    def handle(self, request: RecordedRequest, reply: Reply) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        route = (request.method, request.path)
        if route == ("GET", "/"):
            reply.text(200, "Ollama is running")
        elif route == ("GET", "/api/version"):
            reply.json(200, {"version": self.version})
        elif route == ("GET", "/api/tags") and self.tags_size:
            reply.start_sized(200, "application/json; charset=utf-8", self.tags_size)
            for piece in filled(b'{"models":[{"name":"', self.tags_size):
                reply.write_raw(piece)
        elif route == ("GET", "/api/tags"):
            reply.json(200, {"models": [self._tag(name) for name in list(self.models)]})
        elif route == ("POST", "/api/show"):
            self._show(str(body.get("model") or body.get("name") or ""), reply)
        elif route == ("POST", "/api/chat"):
            self._chat(body, reply)
        elif route == ("POST", "/api/pull"):
            self._pull(str(body.get("model") or body.get("name") or ""), reply)
        else:
            reply.text(404, "404 page not found")

    def _details(self, model: str) -> dict[str, Any]:
        arch = architecture(model)
        return {
            "parent_model": "",
            "format": "gguf",
            "family": arch,
            "families": [arch],
            "parameter_size": _parameter_size(model),
            "quantization_level": "Q4_K_M",
        }

    def _tag(self, model: str) -> dict[str, Any]:
        name = registry_name(model).split("/", 2)[-1].removeprefix("library/")
        digest = hashlib.sha256(name.encode()).hexdigest()
        return {
            "name": name,
            "model": name,
            "modified_at": "2026-08-19T09:41:27.503224361Z",
            "size": 1_000_000_000 + int(digest[:6], 16),
            "digest": digest,
            "details": self._details(model),
        }

    def _show(self, model: str, reply: Reply) -> None:
        key = self.find_model(model)
        if key is None:
            reply.json(404, {"error": f"model '{model}' not found"})
            return
        arch = architecture(key)
        reply.json(
            200,
            {
                "license": "",
                "modelfile": f"# Modelfile generated by the fake Ollama\nFROM {key}\n",
                "parameters": "temperature 0.6",
                "template": "{{ .Prompt }}",
                "details": self._details(key),
                "model_info": {
                    "general.architecture": arch,
                    "general.parameter_count": 8190735360,
                    f"{arch}.context_length": self.context_length,
                    f"{arch}.embedding_length": 4096,
                },
                "capabilities": list(self.models[key]),
                "modified_at": "2026-08-19T09:41:27.503224361Z",
            },
        )

    def _chat(self, body: dict[str, Any], reply: Reply) -> None:
        model = str(body.get("model") or "")
        key = self.find_model(model) if model else None
        if key is None:
            reply.json(404 if model else 400, {"error": f"model '{model}' not found"})
            return
        capabilities = self.models[key]
        think = body.get("think")
        if think not in (None, False, "") and "thinking" not in capabilities:
            reply.json(400, {"error": f"{json.dumps(model)} does not support thinking"})
            return
        if body.get("tools") and "tools" not in capabilities:
            reply.json(400, {"error": f"{registry_name(model)} does not support tools"})
            return
        bad_id = (
            mistral_id_problem(body.get("messages"), missing_ok=True) if self.mistral_ids else None
        )
        if bad_id is not None:
            reply.json(400, {"error": bad_id})
            return
        turn = self.next_turn()
        if turn is not None:
            turn = self.without_tools(turn, body, capabilities)
        if turn is None:
            reply.json(500, {"error": self.script_exhausted()})
        elif turn.kind == "http_error":
            reply.json(turn.status, {"error": turn.error}, turn.headers)
        elif turn.kind == "huge_error":
            self.serve_huge_error(reply, turn)
        elif turn.kind == "raw":
            self.serve_raw(reply, turn, NDJSON)
        else:
            self.serve_stream(reply, 200, NDJSON, self._stream(turn, model, body))

    # -- rendering -------------------------------------------------------------------------

    def _stream(
        self, turn: Turn, model: str, body: dict[str, Any]
    ) -> Iterator[bytes | float | None]:
        messages: list[dict[str, Any]] = []
        for piece in turn.pieces(turn.thinking):
            messages.append({"role": "assistant", "content": "", "thinking": piece})
        for piece in turn.pieces(turn.content):
            messages.append({"role": "assistant", "content": piece})
        if not turn.on_done_chunk:
            for index, call in enumerate(turn.calls):
                for entry in self._call_entries(index, call, turn, split=turn.split_arguments):
                    messages.append({"role": "assistant", "content": "", "tool_calls": [entry]})
        for number, message in enumerate(messages):
            if number and turn.delay:
                yield turn.delay
            yield go_json(
                {"model": model, "created_at": created_at(), "message": message, "done": False}
            )
        if turn.ending == "error":
            yield go_json({"error": turn.error})
            return
        if turn.ending == "drop":
            yield None
            return
        if turn.ending == "eof":
            return
        if turn.ending == "long_line":
            yield from filled(b'{"model":' + json.dumps(model).encode() + b',"message":', turn.size)
            return
        if turn.ending == "endless":
            endless = {"role": "assistant", "content": turn.content}
            while True:
                if turn.delay:
                    yield turn.delay
                yield go_json(
                    {"model": model, "created_at": created_at(), "message": endless, "done": False}
                )
        if turn.ending == "long_event":
            raise ValueError("long_event_turn is for FakeOpenAI; use long_line_turn")
        if turn.delay:
            yield turn.delay
        final: dict[str, Any] = {"role": "assistant", "content": ""}
        if turn.on_done_chunk and turn.calls:
            final["tool_calls"] = [
                self._call_entries(index, call, turn, split=False)[0]
                for index, call in enumerate(turn.calls)
            ]
        yield go_json(self._done_chunk(model, final, turn, body, len(messages) + 1))
        if turn.hold_open:
            yield turn.hold_open  # the connection stays open (until the client hangs up)

    def _done_chunk(
        self, model: str, message: dict[str, Any], turn: Turn, body: dict[str, Any], chunks: int
    ) -> dict[str, Any]:
        prompt_tokens = max(1, len(json.dumps(body.get("messages", []))) // 4)
        prompt_ns, eval_ns, load_ns = prompt_tokens * 300_000, chunks * 21_000_000, 58_113_708
        return {
            "model": model,
            "created_at": created_at(),
            "message": message,
            "done": True,
            "done_reason": turn.done_reason,
            "total_duration": prompt_ns + eval_ns + load_ns + 1_204_011,
            "load_duration": load_ns,
            "prompt_eval_count": prompt_tokens,
            "prompt_eval_duration": prompt_ns,
            "eval_count": chunks,
            "eval_duration": eval_ns,
        }

    def _call_id(self, call: CallSpec, turn: Turn) -> str | None:
        if call.id is not None:
            return call.id
        return f"call_{next(self._call_ids):08d}" if turn.with_ids else None

    def _call_entries(
        self, index: int, call: CallSpec, turn: Turn, *, split: bool
    ) -> list[dict[str, Any]]:
        """The ``tool_calls`` entries of one call: whole, or (``split``) the name first and the
        arguments in later name-less entries (object key by key, or JSON text in fragments)."""
        arguments: dict[str, Any] | str = call.arguments
        if turn.arguments_as_string:
            arguments = call.arguments_text()
        parts: list[Any] = [arguments]
        if split and isinstance(arguments, str):
            parts = [arguments[i : i + 5] for i in range(0, len(arguments), 5)] or [""]
        elif split and isinstance(arguments, dict):
            items = [{key: value} for key, value in arguments.items()]
            parts = items if len(items) > 1 else [{}, *items]
        call_id = self._call_id(call, turn)
        head: dict[str, Any] = {} if call_id is None else {"id": call_id}
        head["function"] = {"index": index, "name": call.name, "arguments": parts[0]}
        return [head, *({"function": {"index": index, "arguments": p}} for p in parts[1:])]

    def _pull(self, model: str, reply: Reply) -> None:
        def lines() -> Iterator[bytes]:
            yield go_json({"status": "pulling manifest"})
            if self.pull_error:
                yield go_json({"error": self.pull_error})
                return
            for short, total in _PULL_LAYERS:
                digest = "sha256:" + hashlib.sha256(short.encode()).hexdigest()
                status = {"status": f"pulling {short}", "digest": digest, "total": total}
                yield go_json(status)
                yield go_json({**status, "completed": total // 2})
                yield go_json({**status, "completed": total})
            for last in ("verifying sha256 digest", "writing manifest", "success"):
                yield go_json({"status": last})
            if self.find_model(model) is None:
                self.add_model(model, ["completion"])

        self.serve_stream(reply, 200, NDJSON, lines())
