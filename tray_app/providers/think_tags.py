"""Move ``<think>…</think>`` segments of streamed answer text to thinking.

Some models (older Ollama templates, most OpenAI-compatible servers running reasoning models)
put their reasoning inside the content. The tags can be split across chunks (``"<thi"`` +
``"nk>"``), so a possible tag prefix at the end of a chunk is held back until the next chunk
decides it: at most ``len("</think>") - 1`` characters, never more, so text still streams live.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["thinking", "content"]
Segment = tuple[Kind, str]

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"


def _partial_tag_length(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0


class ThinkTagSplitter:
    """A streaming splitter: ``feed`` each content chunk, ``flush`` once at the end.

    Every ``<think>…</think>`` segment becomes thinking, wherever it appears. The whitespace
    right after a tag (models write ``"</think>\\n\\n"`` before the answer) is dropped.
    """

    def __init__(self) -> None:
        self._inside = False
        self._held = ""
        self._strip_leading = False

    def feed(self, text: str) -> list[Segment]:
        out: list[Segment] = []
        text = self._held + text
        self._held = ""
        while text:
            tag = CLOSE_TAG if self._inside else OPEN_TAG
            index = text.find(tag)
            if index < 0:
                keep = _partial_tag_length(text, tag)
                self._emit(out, text[: len(text) - keep])
                self._held = text[len(text) - keep :]
                break
            self._emit(out, text[:index])
            text = text[index + len(tag) :]
            self._inside = not self._inside
            self._strip_leading = True
        return out

    def flush(self) -> list[Segment]:
        """Release a held-back partial tag: the stream ended, so it was plain text."""
        out: list[Segment] = []
        held, self._held = self._held, ""
        self._emit(out, held)
        return out

    def _emit(self, out: list[Segment], text: str) -> None:
        if self._strip_leading:
            text = text.lstrip()
            if not text:
                return
            self._strip_leading = False
        if text:
            out.append(("thinking" if self._inside else "content", text))
