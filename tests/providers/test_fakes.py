"""The fake servers themselves: the whole project's tests trust them, so they are checked
against the recorded wire fixtures and for the behaviour their docstrings promise."""

from __future__ import annotations

import json
import threading

import httpx
import pytest

from tests.fakes.ollama_server import (
    FakeOllama,
    fixture_turn,
    slow_turn,
    text_turn,
    tool_turn,
)
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import WIRE_DIR


def chat(fake: FakeOllama | FakeOpenAI, body: dict[str, object]) -> httpx.Response:
    return httpx.post(fake.url + fake.chat_path, json=body, timeout=10)


@pytest.mark.parametrize(
    "name",
    [
        "ollama_error_model_not_found.json",
        "ollama_error_no_tools.json",
        "ollama_error_no_thinking.json",
    ],
)
def test_refusals_are_byte_identical_to_real_ollama(fake_ollama: FakeOllama, name: str) -> None:
    recorded = json.loads((WIRE_DIR / name).read_text())
    response = chat(fake_ollama, recorded["request"]["body"])
    assert response.status_code == recorded["response"]["http_status"]
    assert response.headers["content-type"] == recorded["response"]["content_type"]
    assert response.text == recorded["response"]["body_raw"]
    assert fake_ollama.pending_turns == 0 and len(fake_ollama.chat_requests) == 1


def test_chunks_have_real_ollama_field_order_and_go_escaping(fake_ollama: FakeOllama) -> None:
    fake_ollama.script(
        tool_turn([("get_weather", {"city": "<Paris>"})], thinking="Hm", content="&")
    )
    response = chat(fake_ollama, {"model": "qwen3:8b", "messages": []})
    assert response.headers["content-type"] == "application/x-ndjson"
    lines = response.text.splitlines()
    recorded = (WIRE_DIR / "ollama_stream_tool_call.ndjson").read_text().splitlines()
    assert [list(json.loads(line)) for line in (lines[0], lines[-1])] == [
        list(json.loads(line)) for line in (recorded[0], recorded[-1])
    ]
    call_line = json.loads(lines[2])
    assert list(call_line["message"]["tool_calls"][0]) == ["id", "function"]
    assert list(call_line["message"]["tool_calls"][0]["function"]) == ["index", "name", "arguments"]
    assert "\\u003cParis\\u003e" in lines[2] and "\\u0026" in lines[1]
    assert "<" not in response.text and "&" not in response.text


def test_fixture_turn_replays_the_file_verbatim(fake_ollama: FakeOllama) -> None:
    fake_ollama.script(fixture_turn("ollama_stream_parallel_tools.ndjson", write_size=11))
    response = chat(fake_ollama, {"model": "qwen3:8b", "messages": []})
    assert response.content == (WIRE_DIR / "ollama_stream_parallel_tools.ndjson").read_bytes()


def test_default_turn_answers_when_the_script_is_empty() -> None:
    with FakeOllama(default_turn=text_turn("fallback")) as fake:
        response = chat(fake, {"model": "llama3.2", "messages": []})
    contents = [json.loads(line)["message"]["content"] for line in response.text.splitlines()]
    assert "".join(contents) == "fallback"


def test_wait_for_requests_returns_bodies_or_fails_clearly(fake_ollama: FakeOllama) -> None:
    fake_ollama.script(text_turn("a"))
    threading.Thread(target=chat, args=(fake_ollama, {"model": "qwen3:8b", "messages": []})).start()
    (body,) = fake_ollama.wait_for_requests(1)
    assert body["model"] == "qwen3:8b"
    with pytest.raises(AssertionError, match="1 chat request"):
        fake_ollama.wait_for_requests(2, timeout=0.2)
    with pytest.raises(AssertionError, match="did not hang up"):
        fake_ollama.wait_for_client_disconnect(timeout=0.2)


def test_stop_ends_a_slow_stream_at_once() -> None:
    fake = FakeOllama().start()
    fake.script(slow_turn("x" * 100, delay=60.0, chunk_chars=1))
    errors: list[Exception] = []

    def read() -> None:
        try:
            chat(fake, {"model": "qwen3:8b", "messages": []})
        except httpx.HTTPError as exc:
            errors.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    fake.wait_for_requests(1)
    fake.stop()
    reader.join(10)  # the stream has a minute left: only stop can end it within this
    assert not reader.is_alive()
    assert len(errors) == 1, "the client sees an incomplete body"


def test_openai_stream_shape(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(tool_turn([("read_file", {"path": "a.txt"})], thinking="T"))
    body = {
        "model": "gpt-4o-mini",
        "messages": [],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    response = chat(fake_openai, body)
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [e.removeprefix("data: ") for e in response.text.split("\n\n") if e]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "reasoning_content": "T"}
    header = chunks[1]["choices"][0]["delta"]["tool_calls"][0]
    assert header["function"] == {"name": "read_file", "arguments": ""} and header["id"]
    fragments = [
        c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for c in chunks[2:-2]
    ]
    assert len(fragments) > 1 and json.loads("".join(fragments)) == {"path": "a.txt"}
    assert chunks[-2]["choices"][0] == {
        "index": 0,
        "delta": {},
        "logprobs": None,
        "finish_reason": "tool_calls",
    }
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] > 0
    assert all("usage" in c for c in chunks)


def test_openai_without_stream_answers_one_completion(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text_turn("Whole answer."))
    response = chat(fake_openai, {"model": "gpt-4o-mini", "messages": []})
    data = response.json()
    assert data["object"] == "chat.completion"
    assert data["choices"][0]["message"] == {"role": "assistant", "content": "Whole answer."}
