"""Tools for a model without native tool calling: described in the system prompt, results
sent back as text the model can read.

The calling convention is the Hermes one most open models were trained on: one JSON object per
call inside ``<tool_call>…</tool_call>``, with ``name`` and ``arguments``. A call the model
writes so is read back from its answer by the text-call extractor and goes through exactly the
approvals, budgets, cards and journal of a native call; it is stored as a tool call. For the
next request the history is shaped back into text (``prompt_history``): an assistant's calls
become its ``<tool_call>`` lines again, and tool results become a user message of
``<tool_response>`` blocks, because a model without tools has no tool role in its template
(and strict templates refuse two user messages in a row, so adjacent ones are joined).

Everything here is bounded by what the app controls: each description is cut, a schema is
walked only a few levels deep.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from tray_app.base.messages import ChatMessage, ToolCall
from tray_app.i18n import t

DESCRIPTION_MAX = 600  # characters of a tool's description in the prompt
PARAMETER_MAX = 300  # characters of one parameter's description
_RESPONSE_TAG = re.compile(r"<(/?)tool_response", re.IGNORECASE)
SCHEMA_DEPTH = 3  # levels of a nested schema written out; deeper is just "object"/"array"


#: The words around a tool's parameters (``prompt.tool_words.<key>``).
TOOL_WORDS = ("arguments", "none", "required")


def _cut(text: object, limit: int) -> str:
    """One line of at most ``limit`` characters (a model's or server's text may be anything)."""
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _type_text(schema: object, depth: int = 0) -> str:
    """A parameter's type in a few words: ``string``, ``"a" | "b"``, ``array of string``,
    ``object {x: integer, y: string}``."""
    if not isinstance(schema, Mapping):
        return "any"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return " | ".join(json.dumps(value, ensure_ascii=False) for value in enum[:20])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = " or ".join(str(k) for k in kind if k != "null") or "null"
    if not isinstance(kind, str):
        options = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(options, list) and options:
            return " or ".join(_type_text(option, depth + 1) for option in options[:5])
        kind = "object" if isinstance(schema.get("properties"), Mapping) else "any"
    if kind == "array" and depth < SCHEMA_DEPTH:
        return f"array of {_type_text(schema.get('items'), depth + 1)}"
    properties = schema.get("properties")
    if kind == "object" and isinstance(properties, Mapping) and properties and depth < SCHEMA_DEPTH:
        fields = ", ".join(
            f"{name}: {_type_text(sub, depth + 1)}" for name, sub in list(properties.items())[:30]
        )
        return f"object {{{fields}}}"
    return kind


def _parameter_lines(parameters: object, words: Mapping[str, str]) -> list[str]:
    schema = parameters if isinstance(parameters, Mapping) else {}
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return [words["none"]]
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    lines = [f"{words['arguments']}:"]
    for name, sub in list(properties.items())[:50]:
        facts = [_type_text(sub, 1)]
        if name in needed:
            facts.append(words["required"])
        if isinstance(sub, Mapping) and "default" in sub:
            facts.append(f"default {json.dumps(sub['default'], ensure_ascii=False)[:60]}")
        about = _cut(sub.get("description"), PARAMETER_MAX) if isinstance(sub, Mapping) else ""
        line = f"- {_cut(name, 100)} ({', '.join(facts)})"
        lines.append(f"{line}: {about}" if about else line)
    return lines


def _function(definition: Mapping[str, Any]) -> Mapping[str, Any]:
    function = definition.get("function")
    return function if isinstance(function, Mapping) else definition


def tools_prompt(definitions: Iterable[Mapping[str, Any]], language: str) -> str:
    """The tools (OpenAI-style function definitions) and how to call them, for the system
    prompt of a model in prompt mode."""
    words = {key: t(f"prompt.tool_words.{key}", language) for key in TOOL_WORDS}
    blocks: list[str] = []
    example, example_args = "read_file", '"path": "notes.txt"'
    names: list[str] = []
    for definition in definitions:
        function = _function(definition)
        name = function.get("name")
        if not isinstance(name, str) or not name:
            continue
        names.append(name)
        lines = [f"### {name}"]
        description = _cut(function.get("description"), DESCRIPTION_MAX)
        if description:
            lines.append(description)
        lines.extend(_parameter_lines(function.get("parameters"), words))
        blocks.append("\n".join(lines))
    if names and example not in names:
        example, example_args = names[0], ""
    convention = t("prompt.tools", language)  # its JSON braces are doubled: str.format
    head = convention.format(example=example, example_args=example_args)
    return "\n\n".join([head, *blocks])


# ---- the history, as text ---------------------------------------------------------------------


def call_text(call: ToolCall) -> str:
    """One call as the model is told to write it."""
    payload = {"name": call.name, "arguments": call.arguments}
    return f"<tool_call>{json.dumps(payload, ensure_ascii=False)}</tool_call>"


def _fenced(text: str) -> str:
    """A tool's result cannot close its own block: a file holding ``</tool_response>`` followed
    by instructions would otherwise read as the user speaking."""
    return _RESPONSE_TAG.sub(lambda tag: "&lt;" + tag.group(0)[1:], text)


def response_text(message: ChatMessage) -> str:
    """A tool message as the model reads it."""
    name = json.dumps(message.tool_name or "tool", ensure_ascii=False)
    return f"<tool_response name={name}>\n{_fenced(message.content)}\n</tool_response>"


def prompt_history(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The messages as a model without tool roles reads them: calls as ``<tool_call>`` text,
    each run of results (and the person's message right after it) as one user message."""
    out: list[ChatMessage] = []
    joinable = False  # the last message out is results made into a user message
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            calls = "\n".join(call_text(call) for call in message.tool_calls)
            content = f"{message.content.rstrip()}\n{calls}" if message.content.strip() else calls
            out.append(message.model_copy(update={"content": content, "tool_calls": []}))
            joinable = False
        elif message.role in ("tool", "user") and joinable:
            text = response_text(message) if message.role == "tool" else message.content
            last = out[-1]
            out[-1] = last.model_copy(
                update={
                    "content": f"{last.content}\n\n{text}" if text else last.content,
                    "images": [*last.images, *message.images],
                }
            )
            joinable = message.role == "tool"
        elif message.role == "tool":
            out.append(
                ChatMessage(role="user", content=response_text(message), images=message.images)
            )
            joinable = True
        else:
            out.append(message)
            joinable = False
    return out
