"""What the model sees of an MCP tool, and the risk annotations give it."""

from __future__ import annotations

import re

from tray_app.mcp.naming import describe, model_schema, risk_of, tool_name
from tray_app.tools.base import Risk

VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_names_are_safe_unique_and_capped() -> None:
    taken = {"read_file"}
    names = [
        tool_name("time", "get_current_time", taken),
        tool_name("my server", "tool.with/odd chars ☃", taken),
        tool_name("\u202ehidden", "\u0000", taken),
        tool_name("a" * 80, "b" * 80, taken),
        tool_name("a" * 80, "b" * 79 + "c", taken),
    ]
    assert names[0] == "time__get_current_time"
    assert names[1].startswith("my_server__tool_with_odd_chars_")  # + a digest: ☃ was dropped
    assert all(VALID.match(n) for n in names), names
    assert names[3] != names[4]
    first = tool_name("x", "y", taken)
    taken.add(first)
    second = tool_name("x", "y", taken)
    assert second != first and VALID.match(second)
    assert tool_name("read", "file", {"read__file"}) != "read__file"


def test_description_is_prefixed_and_bounded() -> None:
    assert describe("time", "Get the\n time") == "[time] Get the time"
    assert describe("s", None, "Title") == "[s] Title"
    assert len(describe("s", "x" * 10_000)) < 2_100


def test_schema_is_cleaned_like_the_builtins_and_odd_ones_become_open_objects() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "title": "Args",
        "properties": {"a": {"title": "A", "anyOf": [{"type": "string"}, {"type": "null"}]}},
    }
    assert model_schema(schema) == {"type": "object", "properties": {"a": {"type": "string"}}}
    assert model_schema({"type": "array"}) == {"type": "object", "properties": {}}
    assert model_schema(None) == {"type": "object", "properties": {}}
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10_000)}}
    assert model_schema(huge) == {"type": "object", "properties": {}}


def test_risk_comes_from_annotations_and_trust_only_relaxes_read_only() -> None:
    assert risk_of({"readOnlyHint": True}, "ask") == (Risk.WRITE, True)
    assert risk_of({"readOnlyHint": True}, "trust_read_only") == (Risk.READ, False)
    assert risk_of({}, "trust_read_only") == (Risk.DESTRUCTIVE, False)
    assert risk_of(None, "ask") == (Risk.DESTRUCTIVE, False)
    assert risk_of({"destructiveHint": True}, "trust_read_only") == (Risk.DESTRUCTIVE, False)
    assert risk_of({"destructiveHint": False}, "trust_read_only") == (Risk.WRITE, False)
    assert risk_of({"readOnlyHint": "yes"}, "trust_read_only") == (Risk.DESTRUCTIVE, False)


def test_names_in_other_scripts_stay_distinct_and_safe() -> None:
    taken: set[str] = set()
    first = tool_name("时间", "现在几点", taken)
    taken.add(first)
    second = tool_name("日历", "现在几点", taken)
    mixed = tool_name("git 工具", "status", taken)
    for name in (first, second, mixed):
        assert VALID.match(name), name
    assert first != second and "_2" not in second  # distinct by their own names, not a counter
    assert mixed.startswith("git_") and mixed.endswith("__status")
    assert tool_name("时间", "现在几点", set()) == first  # stable across runs
