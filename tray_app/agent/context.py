"""Fit the history into the model's context window.

Tokens are estimated from characters (CJK ~1 token per character, other text ~1 per 4), the
budget is ~80% of ``num_ctx``. The current turn (the user's message and the tool chain that
follows it) is never cut; older messages go oldest first, and an assistant message that asked
for tools is kept or dropped together with its tool results so the model never sees an orphan.
"""

from __future__ import annotations

import math

from tray_app.messages import ChatMessage

BUDGET_SHARE = 0.8
MESSAGE_OVERHEAD = 4  # role markers and separators


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x3040 <= code <= 0x30FF  # kana
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF  # hangul
        or 0xF900 <= code <= 0xFAFF
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x20000 <= code <= 0x2FA1F
    )


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    cjk = sum(1 for char in text if _is_cjk(char))
    return cjk + math.ceil((len(text) - cjk) / 4)


def message_tokens(message: ChatMessage) -> int:
    total = MESSAGE_OVERHEAD + estimate_tokens(message.content) + estimate_tokens(message.thinking)
    for call in message.tool_calls:
        total += estimate_tokens(call.name) + estimate_tokens(str(call.arguments))
    # An image costs the model far more than its base64 length suggests; a rough fixed cost.
    total += 768 * len(message.images)
    return total


def truncate_tool_result(content: str, limit: int) -> str:
    """Cut a long tool result, saying how much was left out (the model must know)."""
    if len(content) <= limit:
        return content
    dropped = len(content) - limit
    return f"{content[:limit]}\n…[truncated: {dropped} more characters not shown]"


def _groups(messages: list[ChatMessage]) -> list[list[ChatMessage]]:
    """Split into units that must stay together: an assistant with tool calls + its results."""
    groups: list[list[ChatMessage]] = []
    for message in messages:
        if message.role == "tool" and groups and groups[-1][0].tool_calls:
            groups[-1].append(message)
        else:
            groups.append([message])
    return groups


def fit_history(
    system: ChatMessage | None,
    earlier: list[ChatMessage],
    current_turn: list[ChatMessage],
    *,
    num_ctx: int,
    tool_result_limit: int,
) -> list[ChatMessage]:
    """The messages to send: system + as much recent history as fits + the whole current turn."""

    def shrink(message: ChatMessage, *, keep_thinking: bool) -> ChatMessage:
        update: dict[str, object] = {}
        if message.role == "tool":
            update["content"] = truncate_tool_result(message.content, tool_result_limit)
        if not keep_thinking and message.thinking:
            update["thinking"] = ""
        return message.model_copy(update=update) if update else message

    current = [shrink(m, keep_thinking=True) for m in current_turn]
    budget = int(num_ctx * BUDGET_SHARE)
    used = sum(message_tokens(m) for m in current)
    if system is not None:
        used += message_tokens(system)

    kept: list[ChatMessage] = []
    for group in reversed(_groups([shrink(m, keep_thinking=False) for m in earlier])):
        cost = sum(message_tokens(m) for m in group)
        if used + cost > budget:
            break
        used += cost
        kept[:0] = group
    # Never start with an orphan tool result (its assistant message was dropped).
    while kept and kept[0].role == "tool":
        kept.pop(0)
    head = [system] if system is not None else []
    return [*head, *kept, *current]
