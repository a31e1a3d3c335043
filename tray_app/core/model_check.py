"""Know your model: one small tool request that shows how a model calls tools.

The check offers one harmless tool (``report_number``, never run) and asks for a call with a
known argument. Natively first when the server says the model takes tools: a structured call
means "native"; a call written in the answer's text means "text". Otherwise (or when the native
answer had no call) the same ask goes with the tool described in the system prompt, as prompt
mode does: a call recovered from the text means "text", none at all "none". The finding and the
mode it implies (``tool_modes.MODE_FOR_CHECK``) are stored by the caller.

Bounded: each answer is read up to ``MAX_PROBE_CHARS`` and then the stream is closed; thinking
is switched off where the model has it, so the check is quick.
"""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from tray_app.agent.prompt_tools import tools_prompt
from tray_app.agent.tool_modes import MODE_FOR_CHECK, model_key
from tray_app.base.errors import CapabilityError
from tray_app.base.messages import ChatMessage, ToolCall
from tray_app.providers.base import ChatRequest, Provider, StreamDelta, StreamDone
from tray_app.providers.text_calls import extract_calls
from tray_app.store.settings import Settings, ToolCheck

PROBE_NAME = "report_number"
PROBE_NUMBER = 42
PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": PROBE_NAME,
        "description": "Report a number to the user.",
        "parameters": {
            "type": "object",
            "properties": {"number": {"type": "integer", "description": "The number to report."}},
            "required": ["number"],
        },
    },
}
PROBE_ASK = (
    f"Call the {PROBE_NAME} tool with the number {PROBE_NUMBER}. "
    "Do not answer in words: only call the tool."
)
MAX_PROBE_CHARS = 20_000  # an answer longer than this is no call: stop reading there


@dataclass(frozen=True)
class _Answer:
    calls: list[ToolCall]
    content: str
    thinking: str


@dataclass(frozen=True)
class CheckFinding:
    """What the check saw, and whether the server took the tool natively."""

    result: ToolCheck
    native_offered: bool


def stored_finding(settings: Settings, model: str, finding: CheckFinding) -> dict[str, Any]:
    """The settings patch that keeps ``finding`` for ``model`` and puts it in the mode that
    follows (a "native" finding where the server then refused tools means "prompt")."""
    key = model_key(model)
    mode = MODE_FOR_CHECK[finding.result]
    if mode == "native" and not finding.native_offered:
        mode = "prompt"
    return {
        "model_tool_checks": {**settings.model_tool_checks, key: finding.result},
        "model_tool_modes": {**settings.model_tool_modes, key: mode},
    }


async def _ask(provider: Provider, request: ChatRequest) -> _Answer:
    content: list[str] = []
    thinking: list[str] = []
    size = 0
    calls: list[ToolCall] = []
    async with aclosing(provider.chat(request)) as stream:  # type: ignore[type-var]
        async for item in stream:
            if isinstance(item, StreamDone):
                calls = list(item.tool_calls)
            elif isinstance(item, StreamDelta):
                (thinking if item.kind == "thinking" else content).append(item.text)
                size += len(item.text)
                if size > MAX_PROBE_CHARS:
                    break
    return _Answer(calls, "".join(content), "".join(thinking))


def _in_text(answer: _Answer) -> bool:
    """A call to the probe written in the answer (or, failing that, in its reasoning)."""
    offered = {PROBE_NAME}
    return any(
        call.name == PROBE_NAME
        for text in (answer.content, answer.thinking)
        for call in extract_calls(text, offered).calls
    )


async def check_model_tools(
    provider: Provider, model: str, settings: Settings, language: str
) -> CheckFinding:
    """Ask ``model`` for one call of the probe tool; see the module's docstring."""
    info = await provider.model_info(model)
    base = ChatRequest(
        model=model,
        messages=[ChatMessage(role="user", content=PROBE_ASK)],
        think=False if info.supports("thinking") else None,
        temperature=0.0,
        num_ctx=settings.num_ctx,  # the size the model runs at: no reload for the check
        keep_alive=settings.keep_alive or None,
    )
    native_offered = info.supports("tools")
    if native_offered:
        try:
            answer = await _ask(provider, base.model_copy(update={"tools": [PROBE_TOOL]}))
        except CapabilityError as exc:  # an OpenAI-compatible server says so only now
            if exc.capability != "tools":
                raise
            native_offered = False
        else:
            if any(call.name == PROBE_NAME for call in answer.calls):
                return CheckFinding("native", True)
            if _in_text(answer):
                return CheckFinding("text", True)
    system = ChatMessage(role="system", content=tools_prompt([PROBE_TOOL], language))
    answer = await _ask(provider, base.model_copy(update={"messages": [system, *base.messages]}))
    return CheckFinding("text" if _in_text(answer) else "none", native_offered)
