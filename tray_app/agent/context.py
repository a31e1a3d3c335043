"""Fit the history into the model's context window.

Tokens are estimated from characters (CJK ~1 token per character, other text ~1 per 4), the
budget is ~80% of ``num_ctx``. Older messages go oldest first, and an assistant message that
asked for tools is kept or dropped together with its tool results so the model never sees an
orphan. The current turn (the user's message and the tool chain that follows it) is never
dropped; a turn in progress fits its old tool results too (``agent.history``).
"""

from __future__ import annotations

import functools
import math
import re

from tray_app.agent.image_tokens import image_tokens
from tray_app.base.messages import ChatMessage

BUDGET_SHARE = 0.8
MESSAGE_OVERHEAD = 4  # role markers and separators


@functools.cache
def _cjk() -> re.Pattern[str]:
    """The ranges counted as one token per character; everything else counts a quarter.
    Compiled at first use, not at import: it costs ~2 ms and ASCII text never needs it."""
    return re.compile(
        "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
        "\U00020000-\U0002fa1f]"
    )


def estimate_tokens(text: str) -> int:
    """CJK ~1 token per character, other text ~1 per 4; ASCII takes a fast path."""
    if not text:
        return 0
    if text.isascii():
        return math.ceil(len(text) / 4)
    cjk = len(text) - len(_cjk().sub("", text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def message_tokens(message: ChatMessage) -> int:
    total = MESSAGE_OVERHEAD + estimate_tokens(message.content) + estimate_tokens(message.thinking)
    for call in message.tool_calls:
        total += estimate_tokens(call.name) + estimate_tokens(str(call.arguments))
    # An image costs the model far more than its base64 length suggests: from its pixel size.
    total += sum(image_tokens(data) for data in message.images)
    return total


def truncate_tool_result(content: str, limit: int) -> str:
    """Cut a long tool result, saying how much was left out (the model must know)."""
    if len(content) <= limit:
        return content
    dropped = len(content) - limit
    return f"{content[:limit]}\n…[truncated: {dropped} more characters not shown]"


def shrink_message(
    message: ChatMessage, *, tool_result_limit: int, keep_thinking: bool
) -> ChatMessage:
    """A tool result cut to its limit and, for older turns, the thinking dropped; the same
    object when nothing changes (no copy)."""
    update: dict[str, object] = {}
    if message.role == "tool" and len(message.content) > tool_result_limit:
        update["content"] = truncate_tool_result(message.content, tool_result_limit)
    if not keep_thinking and message.thinking:
        update["thinking"] = ""
    return message.model_copy(update=update) if update else message


def group_spans(messages: list[ChatMessage]) -> list[tuple[int, int]]:
    """[start, end) of the units that must stay together: an assistant with tool calls and
    the tool results after it, or a single message."""
    spans: list[tuple[int, int]] = []
    for index, message in enumerate(messages):
        if message.role == "tool" and spans and messages[spans[-1][0]].tool_calls:
            spans[-1] = (spans[-1][0], index + 1)
        else:
            spans.append((index, index + 1))
    return spans


def fit_history(
    system: ChatMessage | None,
    earlier: list[ChatMessage],
    current_turn: list[ChatMessage],
    *,
    num_ctx: int,
    tool_result_limit: int,
) -> list[ChatMessage]:
    """The messages to send: system + as much recent history as fits + the whole current turn.

    Walks back from the newest group and shrinks only what it keeps; a turn in progress keeps
    its history in ``agent.history.TurnHistory`` instead, which also fits the current turn.
    """
    current = [
        shrink_message(m, tool_result_limit=tool_result_limit, keep_thinking=True)
        for m in current_turn
    ]
    budget = int(num_ctx * BUDGET_SHARE)
    used = sum(message_tokens(m) for m in current)
    if system is not None:
        used += message_tokens(system)
    kept_rev: list[ChatMessage] = []
    for a, b in reversed(group_spans(earlier)):
        group = [
            shrink_message(m, tool_result_limit=tool_result_limit, keep_thinking=False)
            for m in earlier[a:b]
        ]
        cost = sum(message_tokens(m) for m in group)
        if used + cost > budget:
            break
        used += cost
        kept_rev.extend(reversed(group))
    # Never start with an orphan tool result (its assistant message was dropped).
    while kept_rev and kept_rev[-1].role == "tool":
        kept_rev.pop()
    kept = kept_rev[::-1]
    head = [system] if system is not None else []
    return [*head, *kept, *current]
