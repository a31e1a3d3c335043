"""The streaming building blocks on their own: think-tag splitting, line splitting, and the
assembly of tool calls from fragments."""

from __future__ import annotations

import pytest

from tray_app.base.messages import ToolCall
from tray_app.providers._lines import LineSplitter
from tray_app.providers.think_tags import ThinkTagSplitter
from tray_app.providers.tool_calls import IndexedToolCalls, NamedToolCalls


def split_think(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkTagSplitter()
    segments = [s for piece in pieces for s in splitter.feed(piece)] + splitter.flush()
    thinking = "".join(text for kind, text in segments if kind == "thinking")
    content = "".join(text for kind, text in segments if kind == "content")
    return thinking, content


def test_think_block_survives_every_two_cut_split() -> None:
    text = "<think>\nweigh it\n</think>\n\nThe answer."
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1):
            assert split_think([text[:i], text[i:j], text[j:]]) == ("weigh it\n", "The answer.")


def test_only_a_possible_tag_prefix_is_held_back() -> None:
    splitter = ThinkTagSplitter()
    assert splitter.feed("a < b, so <thi") == [("content", "a < b, so ")]
    assert splitter.feed("s is fine") == [("content", "<this is fine")]
    assert splitter.feed("end <") == [("content", "end ")]
    assert splitter.flush() == [("content", "<")]


def test_several_think_segments_anywhere() -> None:
    assert split_think(["x<think>a</think>y <think>b</think>z"]) == ("ab", "xy z")


def test_unclosed_think_and_stray_close_tag() -> None:
    assert split_think(["<think>still thinking"]) == ("still thinking", "")
    assert split_think(["no open </think> here"]) == ("", "no open </think> here")


def test_empty_think_block_yields_no_thinking() -> None:
    splitter = ThinkTagSplitter()
    segments = splitter.feed("<think>\n\n</think>\n\nHi")
    assert segments == [("content", "Hi")]


def test_lines_split_at_lf_crlf_and_cr_across_reads() -> None:
    splitter = LineSplitter()
    lines = []
    for piece in [b"a\r", b"\nb\rc", b"\n\r", b"\n", b"d"]:
        lines += splitter.feed(piece)
    assert lines == ["a", "b", "c", ""]
    assert splitter.flush() == ["d"]


def test_lines_do_not_split_at_unicode_separators_or_inside_characters() -> None:
    text = "nel\u0085ls\u2028fs\x1c, 你好🌍\n".encode()
    splitter = LineSplitter()
    lines = [line for i in range(len(text)) for line in splitter.feed(text[i : i + 1])]
    assert lines == ["nel\u0085ls\u2028fs\x1c, 你好🌍"]
    assert splitter.flush() == []


def test_named_calls_merge_fragments_and_adopt_a_late_id() -> None:
    calls = NamedToolCalls()
    calls.add([{"function": {"name": "read_file", "arguments": {"path": "a"}}}])
    calls.add([{"id": "call_1", "function": {"arguments": {"end_line": 3}}}])
    calls.add([{"function": {"name": "grep", "arguments": '{"q": '}}])
    calls.add([{"function": {"arguments": '"x"}'}}])
    assert calls.build() == [
        ToolCall(id="call_1", name="read_file", arguments={"path": "a", "end_line": 3}),
        ToolCall(name="grep", arguments={"q": "x"}),
    ]


@pytest.mark.parametrize(
    ("arguments", "expected", "error"),
    [
        ("", {}, None),
        ('"{\\"a\\": 1}"', {"a": 1}, None),  # encoded twice by the model
        ("[1, 2]", {}, "must be a JSON object, not list"),
        ([1, 2], {}, "must be a JSON object, not list"),
        ("{oops", {}, "not valid JSON"),
    ],
)
def test_argument_forms(arguments: object, expected: dict[str, object], error: str | None) -> None:
    calls = NamedToolCalls()
    calls.add([{"function": {"name": "f", "arguments": arguments}}])
    (call,) = calls.build()
    assert call.arguments == expected
    if error is None:
        assert call.arguments_error is None
    else:
        assert call.arguments_error is not None and error in call.arguments_error


def test_a_nameless_first_fragment_is_reported_not_dropped() -> None:
    calls = NamedToolCalls()
    calls.add([{"function": {"arguments": {"path": "a"}}}])
    (call,) = calls.build()
    assert call.name == ""
    assert call.arguments_error == "The model sent tool arguments without a tool name."


def test_indexed_calls_interleave_and_come_out_in_index_order() -> None:
    calls = IndexedToolCalls()
    calls.add(
        [{"index": 1, "id": "b", "type": "function", "function": {"name": "g", "arguments": ""}}]
    )
    calls.add(
        [{"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": ""}}]
    )
    calls.add([{"index": 1, "function": {"arguments": '{"y":'}}])
    calls.add([{"index": 0, "function": {"arguments": '{"x": 1}'}}])
    calls.add([{"index": 1, "function": {"arguments": " 2}"}}])
    assert calls.build() == [
        ToolCall(id="a", name="f", arguments={"x": 1}),
        ToolCall(id="b", name="g", arguments={"y": 2}),
    ]


def test_indexed_calls_without_index() -> None:
    calls = IndexedToolCalls()
    calls.add([{"id": "a", "function": {"name": "f", "arguments": '{"x"'}}])
    calls.add([{"function": {"arguments": ": 1}"}}])
    calls.add([{"id": "b", "function": {"name": "g", "arguments": "{}"}}])
    assert calls.build() == [
        ToolCall(id="a", name="f", arguments={"x": 1}),
        ToolCall(id="b", name="g", arguments={}),
    ]
