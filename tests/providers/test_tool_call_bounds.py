"""Tool-call arguments past the depth and size limits become a placeholder and a sentence."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tray_app.base.messages import ToolCall
from tray_app.providers.tool_calls import (
    MAX_ARGUMENT_BYTES,
    MAX_ARGUMENT_DEPTH,
    IndexedToolCalls,
    NamedToolCalls,
    bound_call,
    deeper_than,
    text_deeper_than,
)

HOSTILE = "长文🙂\u202eabc"


def nested(levels: int, leaf: Any = HOSTILE) -> Any:
    value = leaf
    for _ in range(levels):
        value = {"k": value}
    return value


def test_depth_is_counted_in_objects_and_lists() -> None:
    assert not deeper_than(nested(MAX_ARGUMENT_DEPTH))
    assert deeper_than(nested(MAX_ARGUMENT_DEPTH + 1))
    listed: Any = [HOSTILE]
    for _ in range(MAX_ARGUMENT_DEPTH):
        listed = [listed]
    assert deeper_than(listed) and not deeper_than(listed[0])
    assert deeper_than(nested(100_000))  # no recursion, so any depth is safe to check


def test_text_depth_skips_strings_and_escapes() -> None:
    assert not text_deeper_than(json.dumps({"a": "[" * 500 + '\\"{' * 500}))
    assert text_deeper_than(json.dumps(nested(MAX_ARGUMENT_DEPTH + 1)))
    assert not text_deeper_than(json.dumps(nested(MAX_ARGUMENT_DEPTH)))
    assert text_deeper_than("[" * 1_000_000)
    assert not text_deeper_than('"' + "\\" * 10 + "[" * 100)  # an unterminated string


@pytest.mark.parametrize("levels", [65, 260, 5_000])
def test_deep_text_arguments_are_refused_without_being_parsed(levels: int) -> None:
    calls = IndexedToolCalls()
    text = '{"a": ' + "[" * levels + "]" * levels + "}"
    calls.add([{"index": 0, "id": "c1", "function": {"name": "echo", "arguments": ""}}])
    for start in range(0, len(text), 7):
        calls.add([{"index": 0, "function": {"arguments": text[start : start + 7]}}])
    (call,) = calls.build()
    assert call.arguments == {"_refused": "nested too deeply"}
    assert call.arguments_error is not None
    assert call.arguments_error.startswith("arguments nested too deeply (more than 64 levels)")
    assert call.name == "echo" and call.id == "c1"


def test_a_twice_encoded_deep_object_is_refused_too() -> None:
    calls = IndexedToolCalls()
    encoded = json.dumps(json.dumps(nested(300)))
    calls.add([{"index": 0, "function": {"name": "echo", "arguments": encoded}}])
    (call,) = calls.build()
    assert call.arguments == {"_refused": "nested too deeply"}


def test_deep_object_arguments_are_refused() -> None:
    calls = NamedToolCalls()
    calls.add([{"function": {"name": "echo", "arguments": {"text": nested(260)}}}])
    calls.add([{"function": {"name": "echo", "arguments": {"text": HOSTILE}}}])
    deep, fine = calls.build()
    assert deep.arguments == {"_refused": "nested too deeply"} and deep.arguments_error
    assert fine.arguments == {"text": HOSTILE} and fine.arguments_error is None


def test_large_text_arguments_keep_only_a_placeholder_with_the_size() -> None:
    calls = IndexedToolCalls()
    text = json.dumps({"text": HOSTILE * 100_000}, ensure_ascii=False)
    calls.add([{"index": 0, "function": {"name": "write_file", "arguments": ""}}])
    for start in range(0, len(text), 4096):
        calls.add([{"index": 0, "function": {"arguments": text[start : start + 4096]}}])
    pending = calls._calls[0][1]
    assert pending._text == []  # what passed the limit was let go during the stream
    (call,) = calls.build()
    size = len(text.encode())
    assert call.arguments == {"_refused": "too large", "_bytes": size}
    assert call.arguments_error == (
        f"arguments too large ({size:,} bytes; the limit is {MAX_ARGUMENT_BYTES:,}), "
        "so they were not kept; split the work into smaller calls"
    )


def test_large_object_arguments_are_measured_in_utf8_bytes() -> None:
    calls = NamedToolCalls()
    just_over = "🙂" * (MAX_ARGUMENT_BYTES // 4)  # fewer characters than the limit, more bytes
    calls.add([{"function": {"name": "echo", "arguments": {"text": just_over}}}])
    (call,) = calls.build()
    assert call.arguments["_refused"] == "too large"
    assert call.arguments["_bytes"] > MAX_ARGUMENT_BYTES


def test_arguments_at_the_limit_pass_unchanged() -> None:
    text = "x" * (MAX_ARGUMENT_BYTES - len('{"text":""}'))
    calls = NamedToolCalls()
    calls.add([{"function": {"name": "echo", "arguments": {"text": text}}}])
    (call,) = calls.build()
    assert call.arguments == {"text": text} and call.arguments_error is None


def test_bound_call_guards_calls_from_any_provider_and_is_idempotent() -> None:
    deep = bound_call(ToolCall(name="echo", arguments={"a": nested(100)}))
    assert deep.arguments == {"_refused": "nested too deeply"}
    assert bound_call(deep) == deep
    big = bound_call(ToolCall(name="echo", arguments={"a": "x" * (MAX_ARGUMENT_BYTES + 1)}))
    assert big.arguments["_refused"] == "too large"
    assert bound_call(big) == big
    fine = ToolCall(name="echo", arguments={"a": HOSTILE})
    assert bound_call(fine) is fine


def test_lone_surrogates_become_replacement_characters() -> None:
    calls = NamedToolCalls()
    arguments = {"text": "\ud800" + HOSTILE, "\udc00key": ["\udfff"]}
    calls.add([{"id": "c\ud800", "function": {"name": "echo\udc00", "arguments": arguments}}])
    (call,) = calls.build()
    assert call.arguments == {"text": "\ufffd" + HOSTILE, "\ufffdkey": ["\ufffd"]}
    assert call.name == "echo\ufffd" and call.id == "c\ufffd"
    call.model_dump_json()  # storable now: pydantic refused the lone surrogates
    text = IndexedToolCalls()
    text.add([{"index": 0, "function": {"name": "echo", "arguments": '{"text": "\\ud800x"}'}}])
    assert text.build()[0].arguments == {"text": "\ufffdx"}
