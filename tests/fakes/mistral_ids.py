"""What a Mistral-family server says about the tool-call ids in a history it is sent.

mistral_common validates every ``tool_calls[].id`` and ``tool_call_id`` against ``[a-zA-Z0-9]``
with a length of exactly 9 and the request fails with HTTP 400 (vLLM with
``--tokenizer-mode mistral``: vllm-project/vllm#9019 and #12332; Mistral's own API:
jackmpcollins/magentic#276, nearai/ironclaw#1241). Both fakes use this in ``mistral_ids`` mode.
"""

from __future__ import annotations

import re
from typing import Any

_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def mistral_id_problem(messages: Any, *, missing_ok: bool = False) -> str | None:
    """The error a Mistral-family server gives for the first tool-call id it refuses; with
    ``missing_ok`` (Ollama's native API, where ids are optional) an absent id passes."""
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        ids = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if message.get("role") == "tool":
            ids.append(message.get("tool_call_id"))
        for call_id in ids:
            if call_id is None and missing_ok:
                continue
            if not isinstance(call_id, str) or not _MISTRAL_ID.fullmatch(call_id):
                return f"Tool call id was {call_id} but must be a-z, A-Z, 0-9, with a length of 9."
    return None
