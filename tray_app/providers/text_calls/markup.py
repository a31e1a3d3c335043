"""The markers models write around calls, and finding where a marked stretch ends."""

from __future__ import annotations

MAX_SCAN_CHARS = 600_000  # more than the largest arguments a call may carry (256 KB) + text

TOOL_CALL_OPEN, TOOL_CALL_CLOSE = "<tool_call>", "</tool_call>"
FUNCTION_OPEN, FUNCTION_CLOSE = "<function=", "</function>"
PARAMETER_OPEN, PARAMETER_CLOSE = "<parameter=", "</parameter>"
ARG_KEY_OPEN, ARG_KEY_CLOSE = "<arg_key>", "</arg_key>"
ARG_VALUE_OPEN, ARG_VALUE_CLOSE = "<arg_value>", "</arg_value>"
PYTHON_TAG = "<|python_tag|>"
PYTHON_TAG_ENDS = ("<|eom_id|>", "<|eot_id|>")
MISTRAL = "[TOOL_CALLS]"
MISTRAL_ARGS, MISTRAL_CALL_ID = "[ARGS]", "[CALL_ID]"
HARMONY_CHANNEL, HARMONY_START = "<|channel|>", "<|start|>"
HARMONY_MESSAGE = "<|message|>"
HARMONY_ENDS = ("<|call|>", "<|end|>", "<|return|>")
TOOL_CODE_FENCE = "```tool_code"
#: DeepSeek's markers, with the full-width bar it documents and the ASCII one servers print.
DEEPSEEK = {
    bar: {
        "calls_begin": f"<{bar}tool▁calls▁begin{bar}>",
        "calls_end": f"<{bar}tool▁calls▁end{bar}>",
        "call_begin": f"<{bar}tool▁call▁begin{bar}>",
        "call_end": f"<{bar}tool▁call▁end{bar}>",
        "sep": f"<{bar}tool▁sep{bar}>",
    }
    for bar in ("｜", "|")
}
_DEEPSEEK_OPENERS = tuple(
    marks[key] for marks in DEEPSEEK.values() for key in ("calls_begin", "call_begin")
)
#: What starts marked call text anywhere in an answer (the streaming gate holds from here).
MARKERS: tuple[str, ...] = (
    TOOL_CALL_OPEN,
    FUNCTION_OPEN,
    PYTHON_TAG,
    MISTRAL,
    HARMONY_CHANNEL,
    HARMONY_START,
    TOOL_CODE_FENCE,
    *_DEEPSEEK_OPENERS,
)


def until(text: str, start: int, ends: tuple[str, ...]) -> tuple[int, int]:
    """(where the first of ``ends`` after ``start`` begins, where it ends); the text's end
    twice when none follows (a call cut by the end of the answer)."""
    best = -1
    size = 0
    for end in ends:
        hit = text.find(end, start)
        if hit >= 0 and (best < 0 or hit < best):
            best, size = hit, len(end)
    return (len(text), len(text)) if best < 0 else (best, best + size)
