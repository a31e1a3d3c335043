"""The extractor of calls left in text, and the streaming gate in front of it: every corpus
shape, then hostile input (huge, nested, unclosed, wrong tool names, CJK and emoji)."""

from __future__ import annotations

import json
import time

import pytest

from tests.fakes.model_shapes import CONTENT, call_shapes
from tray_app.providers.text_calls import MAX_CALLS, MAX_SCAN_CHARS, extract_calls, offered_names
from tray_app.providers.text_calls.gate import TextCallGate
from tray_app.providers.tool_calls import MAX_ARGUMENT_DEPTH

OFFERED = frozenset({"write_file", "read_file"})


def _streamed(text: str, size: int = 3, offered: frozenset[str] = OFFERED) -> tuple[str, str]:
    """(what the gate let through, what it still holds) for ``text`` in ``size`` pieces."""
    gate = TextCallGate(offered)
    shown = "".join(gate.feed(text[i : i + size]) for i in range(0, len(text), size))
    return shown, gate.held()


@pytest.mark.parametrize(
    "shape", [s for s in call_shapes() if s.content], ids=lambda shape: shape.name
)
def test_every_corpus_shape_gives_its_call(shape: object) -> None:
    from tests.fakes.model_shapes import Shape

    assert isinstance(shape, Shape)
    found = extract_calls(shape.content, OFFERED)
    assert [(c.name, c.arguments, c.arguments_error) for c in found.calls] == [
        ("write_file", {"path": shape.path(), "content": CONTENT}, None)
    ]
    assert found.text == shape.answer and found.unusable == ()
    for size in (1, 2, 5, 64):  # never shown while it streams, whatever the cut
        shown, held = _streamed(shape.content, size)
        assert shown + held == shape.content
        assert shown.rstrip() == shape.answer


def test_plain_answers_pass_untouched_and_stream_at_once() -> None:
    for text in (
        "Just an answer.",
        "[link](https://example.com) first",
        "<b>bold</b> and a < b > c",
        '{"城市": "北京"} is JSON data, not a call',
        "```python\nprint('hi')\n```",
        "`<tool_call>` is how qwen marks a call",
        '```\n<tool_call>{"name": "write_file", "arguments": {}}</tool_call>\n```',
    ):
        found = extract_calls(text, OFFERED)
        assert not found.changed and found.text == text, text
        shown, held = _streamed(text)
        assert shown + held == text
    shown, held = _streamed("Hello world, nothing to hold here at all.")
    assert held == ""


def test_json_that_is_data_is_released_when_it_closes() -> None:
    gate = TextCallGate(OFFERED)
    assert gate.feed('{"name": "Alice", ') == ""
    assert gate.feed('"age": 3}') == '{"name": "Alice", "age": 3}'
    assert gate.feed(" more") == " more"
    gate = TextCallGate(OFFERED)
    assert gate.feed("[1, 2]") == "[1, 2]"  # a list that does not start with an object
    for text in ("[x] done", "[Link text](https://x.y)", "[Don't](x)", "{x: 1}", "[note]"):
        gate = TextCallGate(OFFERED)
        shown = "".join(gate.feed(char) for char in text)
        assert shown + gate.held() == text and len(gate.held()) <= 1, text  # decided at once
    gate = TextCallGate(OFFERED)
    assert gate.feed("[read_file(path='a]b')") == ""  # a quote in a python value is a string
    assert gate.feed("]") == ""
    assert gate.held() == "[read_file(path='a]b')]"


def test_a_call_to_a_tool_not_offered_is_cut_and_reported() -> None:
    text = 'Hi.\n<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>'
    found = extract_calls(text, OFFERED)
    assert found.calls == [] and found.unusable == ("rm_rf",) and found.text == "Hi."
    bare = '{"name": "rm_rf", "arguments": {"path": "/"}}'  # weak shape: left alone
    assert not extract_calls(bare, OFFERED).changed


def test_a_leading_call_fence_with_a_sentence_after_it() -> None:
    call = '{"name": "write_file", "parameters": {"path": "a.txt", "content": "中文"}}'
    text = f"```json\n{call}\n```\n\nThis writes the file 🙂."
    found = extract_calls(text, OFFERED)
    assert [c.arguments for c in found.calls] == [{"path": "a.txt", "content": "中文"}]
    assert found.text == "This writes the file 🙂."
    shown, held = _streamed(text)
    assert shown == "" and held == text  # decided when the fence closed: held to the end
    later = f"Here it is:\n```json\n{call}\n```"  # not opening the answer: an example
    assert not extract_calls(later, OFFERED).changed


def test_a_fence_inside_a_fenced_calls_json_string_does_not_close_it() -> None:
    readme = "# Use\n```bash\nmake\n```\n"
    call = json.dumps({"name": "write_file", "parameters": {"path": "R.md", "content": readme}})
    text = f"```json\n{call}\n```"
    shown, held = _streamed(text, 2)
    assert shown == "" and held == text  # held whole: never shown, then taken away
    assert extract_calls(text, OFFERED).calls[0].arguments["content"] == readme


def test_markup_talked_about_inside_a_line_stays_text() -> None:
    for text in (
        "Qwen marks a call with <tool_call> tags and JSON inside them.",
        "Mistral starts with [TOOL_CALLS] and then a list.",
        'The format is <tool_call>{"name": "x", "arguments": {}}</tool_call> in one line.',
    ):
        found = extract_calls(text, OFFERED)
        assert found.text == text and found.unusable == (), text
        for size in (1, 3):
            shown, held = _streamed(text, size)
            assert shown + held == text
            if "JSON inside" in text or "then a list" in text:
                assert held == "", (size, held)  # decided at the next word, not at the end


def test_a_call_after_a_sentence_on_its_line_is_still_held() -> None:
    call = '{"name": "write_file", "arguments": {"path": "a", "content": "b"}}'
    for text in (
        f"Writing it now: <tool_call>{call}</tool_call>",
        'Now: [TOOL_CALLS]write_file[ARGS]{"path": "a", "content": "b"}',
        'Now: <function=write_file>{"path": "a", "content": "b"}</function>',
    ):
        shown, held = _streamed(text, 2)
        assert shown.rstrip() == text[: text.index(": ") + 1] and held, text
        assert extract_calls(text, OFFERED).calls, text


def test_nothing_is_taken_when_no_tools_are_offered() -> None:
    text = '<tool_call>{"name": "write_file", "arguments": {}}</tool_call>'
    assert not extract_calls(text, ()).changed
    assert _streamed(text, offered=frozenset()) == (text, "")


def test_arguments_are_repaired_and_bounded_like_native_calls() -> None:
    double = json.dumps(json.dumps({"path": "a.txt", "content": "x"}))
    found = extract_calls(
        f'<tool_call>{{"name": "write_file", "arguments": {double}}}</tool_call>', OFFERED
    )
    assert found.calls[0].arguments == {"path": "a.txt", "content": "x"}
    bad = extract_calls('<function=write_file>{"path": "a.txt",</function>', OFFERED)
    assert bad.calls[0].arguments_error  # the model is told, nothing runs
    positional = extract_calls('```tool_code\nwrite_file("a.txt")\n```', OFFERED)
    assert "named arguments" in (positional.calls[0].arguments_error or "")
    code = extract_calls('```tool_code\nwrite_file(path=__import__("os").getcwd())\n```', OFFERED)
    assert "literal" in (code.calls[0].arguments_error or "")  # never evaluated


def test_cjk_emoji_and_bidi_arguments_survive_every_shape() -> None:
    content = "第一行 ✨\nمرحبا 👩🏽‍💻 \u202eevil\u202c </parameter> not the end"
    call = {"name": "write_file", "arguments": {"path": "笔记.txt", "content": content}}
    text = f"<tool_call>{json.dumps(call, ensure_ascii=False)}</tool_call>"
    assert extract_calls(text, OFFERED).calls[0].arguments["content"] == content


def test_several_calls_in_one_answer_come_in_order() -> None:
    text = (
        '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\n'
        '<tool_call>{"name": "write_file", "arguments": {"path": "b", "content": ""}}</tool_call>'
        '[TOOL_CALLS]read_file[ARGS]{"path": "c"}'
    )
    names = [(c.name, c.arguments["path"]) for c in extract_calls(text, OFFERED).calls]
    assert names == [("read_file", "a"), ("write_file", "b"), ("read_file", "c")]
    many = "".join(
        f'<tool_call>{{"name": "read_file", "arguments": {{"path": "{n}"}}}}</tool_call>'
        for n in range(100)
    )
    assert len(extract_calls(many, OFFERED).calls) == MAX_CALLS


def test_unclosed_and_cut_markup_is_read_or_reported_never_raised() -> None:
    cut = '<tool_call>\n{"name": "write_file", "arguments": {"path": "a", "content": "b"}}'
    assert extract_calls(cut, OFFERED).calls[0].arguments == {"path": "a", "content": "b"}
    for broken in (
        "<tool_call>",
        "<tool_call>{",
        "<function=",
        "<|python_tag|>",
        "[TOOL_CALLS]",
        "[TOOL_CALLS]write_file[ARGS]",
        "<|channel|>commentary to=functions.write_file",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>",
        "```tool_code\nwrite_file(",
        "<tool_call>write_file<arg_key>path",
    ):
        found = extract_calls(broken, OFFERED)
        assert found.text == "" or found.text != broken, broken  # the markup is never the answer


def test_deep_nesting_is_refused_not_recursed() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for text in (
        f'<tool_call>{{"name": "write_file", "arguments": {{"a": {deep}}}}}</tool_call>',
        f"[TOOL_CALLS]{deep}",
        f"```tool_code\nwrite_file(a={deep})\n```",
        deep,
    ):
        found = extract_calls(text, OFFERED)  # no RecursionError
        for call in found.calls:
            assert call.arguments_error
    nested = {"a": 1}
    for _ in range(MAX_ARGUMENT_DEPTH + 5):
        nested = {"a": nested}
    text = json.dumps({"name": "write_file", "arguments": nested})
    assert "deeply" in (
        extract_calls(f"<tool_call>{text}</tool_call>", OFFERED).calls[0].arguments_error or ""
    )


def test_huge_input_is_bounded_and_linear() -> None:
    huge = "<" * (MAX_SCAN_CHARS + 1)
    assert not extract_calls(huge, OFFERED).changed
    started = time.process_time()
    hostile = ("<tool_call" + "[TOOL_CALLS" + "```" + "<function" + "\n") * 40_000  # ~1.5 MB
    extract_calls(hostile[: MAX_SCAN_CHARS - 1], OFFERED)
    shown, held = _streamed(hostile, 7)
    assert shown + held == hostile
    markers = "<tool_call>x</tool_call> " * 20_000
    extract_calls(markers, OFFERED)
    assert time.process_time() - started < 20  # quadratic would take minutes


def test_white_space_before_an_answer_is_not_held() -> None:
    gate = TextCallGate(OFFERED)
    assert "".join(gate.feed("\n") for _ in range(50_000)) == "\n" * 50_000
    assert gate.feed("<tool_call>") == ""  # still deciding how the answer starts


def test_held_text_is_released_past_the_scan_limit() -> None:
    gate = TextCallGate(OFFERED)
    assert gate.feed("<tool_call>") == ""
    piece = "x" * 100_000
    shown = "".join(gate.feed(piece) for _ in range(7))
    assert shown.startswith("<tool_call>") and gate.held() == ""
    assert gate.feed("<tool_call>more") == "<tool_call>more"  # this answer is past deciding


def test_offered_names_reads_the_request_tools() -> None:
    tools = [{"type": "function", "function": {"name": "write_file"}}, {"bad": 1}, "x"]
    assert offered_names(tools) == {"write_file"}  # type: ignore[arg-type]
    assert offered_names(None) == frozenset()
