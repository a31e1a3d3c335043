"""One assistant message as it streams: deltas out, saved every second, bounded, finished.

The answer is stored before the first byte arrives and saved every second while it grows
(nothing the user saw is lost). It stops at ``max_chars`` (thinking + content) with a notice,
closing the HTTP response at once; a stream silent for ``waiting_after`` seconds gets one
"waiting for the model…" notice per silence. Tool calls are bounded again here
(``providers.tool_calls.bound_call``) whatever the provider did, and lone surrogates in the
text become U+FFFD so it can be stored.

Answer text that may be a tool call written into the text is held back while it streams
(``providers.text_call_gate``); when the stream ends, ``answer_text.settle`` turns such calls
into real ones (when none came structured), a lone ``</think>`` into reasoning, and the rest
that was held is shown. ``done_reason: "length"`` and reasoning without an answer get a notice.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from tray_app.agent.answer_text import LoneCloseTag, Settled, settle
from tray_app.agent.deltas import DeltaBatcher
from tray_app.agent.notices import notice_text
from tray_app.base.errors import StreamError
from tray_app.base.events import (
    ContentDelta,
    MessageFinished,
    MessageStarted,
    NoticeCode,
    Publish,
)
from tray_app.base.messages import ToolCall
from tray_app.providers.base import (
    INCOMPLETE,
    ChatRequest,
    Provider,
    ProviderNotice,
    StreamDone,
)
from tray_app.providers.text_calls import offered_names
from tray_app.providers.text_calls.gate import TextCallGate
from tray_app.providers.tool_calls import bound_call, storable
from tray_app.store.records import ChatRepository, MessageRecord

SAVE_INTERVAL = 1.0  # seconds between saves of a streaming answer ("nothing lost")


class NoticeFn(Protocol):
    """How the stream tells the user something that is not an error (the loop's ``_notice``);
    ``args`` are the values the page puts into its own text for ``code``."""

    def __call__(
        self, code: NoticeCode, message: str, *, level: str = ..., **args: int | float
    ) -> None: ...


class _Text:
    """Text that grows by small pieces in linear time.

    ``message.content += piece`` copies the whole answer each time (a pydantic attribute gets
    no in-place concatenation): a million characters in 4-character deltas took ~50 s of CPU.
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self.length = 0

    def add(self, piece: str) -> None:
        self._parts.append(piece)
        self.length += len(piece)

    def value(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""


@dataclass
class _Silence:
    """When the stream last sent something, and which silence was already announced."""

    last: float
    noticed: float = -1.0


@dataclass
class Streamed:
    """What one streamed message came to."""

    message_id: str
    calls: list[ToolCall] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    cut: bool = False  # stopped at the length limit
    record: MessageRecord | None = None  # the finished message, as stored


def _seconds(value: float) -> float:
    return float(round(value)) if value >= 2 else round(value, 1)


class AnswerStream:
    """Streams the assistant messages of one turn, one at a time."""

    def __init__(
        self,
        *,
        session_id: str,
        turn_id: str,
        model: str,
        chats: ChatRepository,
        publish: Publish,
        notice: NoticeFn,
        language: str,
        max_chars: int,
        waiting_after: float,
    ) -> None:
        self.session_id = session_id
        self.turn_id = turn_id
        self.model = model
        self.chats = chats
        self.publish = publish
        self.notice = notice
        self.language = language
        self.max_chars = max_chars
        self.waiting_after = waiting_after
        self.message: MessageRecord | None = None  # the one streaming now
        self._content = _Text()  # the answer text shown so far
        self._thinking = _Text()
        self._gate = TextCallGate(())  # what may still be a call, not shown yet
        self._close_tag = LoneCloseTag()

    async def stream(
        self,
        provider: Provider,
        request: ChatRequest,
        round_no: int,
        *,
        described: list[dict[str, Any]] | None = None,
    ) -> Streamed:
        """One message. ``described``: the tools a model in prompt mode was told about in its
        system prompt (the request carries none); calls to them are read from its text."""
        message = MessageRecord(
            session_id=self.session_id,
            turn_id=self.turn_id,
            role="assistant",
            model=self.model,
            stats={"streaming": True},
        )
        self.chats.add_message(message)
        self.message = message
        self._content, self._thinking = _Text(), _Text()
        offered = offered_names(request.tools or described)
        self._gate = TextCallGate(offered)
        self._close_tag = LoneCloseTag()
        self.publish(
            MessageStarted(
                session_id=self.session_id,
                turn_id=self.turn_id,
                message_id=message.id,
                round=round_no,
                model=self.model,
            )
        )
        loop = asyncio.get_running_loop()
        saver = loop.create_task(self._save_periodically(message))
        silence = _Silence(last=time.monotonic())
        watcher = loop.create_task(self._watch_silence(silence))
        try:
            done, cut = await self._consume(provider, request, message, silence)
        finally:
            saver.cancel()
            watcher.cancel()
        if cut:
            self.finish(stopped=True, stats={"cut_at": self.max_chars})
            self.notice(
                "answer_limit",
                notice_text("answer_limit", self.language, limit=self.max_chars),
                limit=self.max_chars,
            )
            return Streamed(message.id, cut=True)
        if done is None:
            raise StreamError("the answer ended before the server said it was done")
        stats = done.stats.model_dump(exclude_none=True)
        shown, thinking = self._content.value(), self._thinking.value()
        calls = [bound_call(call) for call in done.tool_calls]
        rest = self._gate.feed(self._close_tag.flush()) + self._gate.held()
        settled = settle(shown + rest, thinking, calls, offered, self._close_tag.at)
        if done.done_reason == INCOMPLETE:
            settled = replace(settled, calls=[], recovered=False)  # unfinished: nothing runs
        message.content, message.thinking = settled.content, settled.thinking
        message.tool_calls = [bound_call(call) for call in settled.calls]
        if settled.recovered:
            stats["calls_from_text"] = len(message.tool_calls)
        message.stats = stats
        self.chats.update_message(
            message.id,
            content=message.content,
            thinking=message.thinking,
            tool_calls=message.tool_calls,
            stats=stats,
        )
        replaced = self._show_rest(message.id, shown, thinking, settled)
        self.publish(
            MessageFinished(
                session_id=self.session_id,
                message_id=message.id,
                stats=stats,
                content=replaced.get("content"),
                thinking=replaced.get("thinking"),
            )
        )
        self._endings(done, settled)
        self.message = None
        return Streamed(message.id, message.tool_calls, stats, record=message)

    def _show_rest(
        self, message_id: str, shown: str, thinking: str, settled: Settled
    ) -> dict[str, str]:
        """Show what the gate held that is answer after all; texts that are not what streamed
        plus that rest go whole on ``message_finished`` instead."""
        replaced: dict[str, str] = {}
        if settled.content.startswith(shown):
            rest = settled.content[len(shown) :]
            if rest:
                self.publish(
                    ContentDelta(session_id=self.session_id, message_id=message_id, text=rest)
                )
        elif shown[len(settled.content) :].strip() or not shown.startswith(settled.content):
            replaced["content"] = settled.content  # (trailing white space shown can stay)
        if settled.thinking != thinking:
            replaced["thinking"] = settled.thinking
        return replaced

    def _endings(self, done: StreamDone, settled: Settled) -> None:
        """Notices about how the answer ended: cut by the length, reasoning with no answer, no
        answer at all, a call in the text that could not run."""
        language = self.language
        if done.done_reason == "length":
            self.notice("answer_cut", notice_text("answer_cut", language))
        elif done.done_reason == INCOMPLETE:
            self.notice("answer_incomplete", notice_text("answer_incomplete", language))
        elif not settled.content.strip() and not settled.calls and not settled.unusable:
            if settled.thinking.strip():
                self.notice("thinking_only", notice_text("thinking_only", language))
            else:
                self.notice("empty_answer", notice_text("empty_answer", language))
        if settled.unusable and not settled.calls:
            names = ", ".join(sorted({name for name in settled.unusable if name}))
            key = "text_call_unusable" if names else "text_call_unreadable"
            self.notice("text_call_unusable", notice_text(key, language, names=names))

    def finish(
        self, *, stopped: bool, error: str | None = None, stats: dict[str, Any] | None = None
    ) -> None:
        """Keep what streamed of an interrupted answer, marked stopped."""
        message = self.message
        if message is None:
            return
        self.message = None
        # What the gate still held was not decided: it is kept as the answer's text.
        message.content = self._content.value() + self._gate.held() + self._close_tag.flush()
        message.thinking = self._thinking.value()
        self.chats.update_message(
            message.id,
            content=message.content,
            thinking=message.thinking,
            stopped=stopped,
            error=error,
            stats=stats or {},
        )
        self.publish(
            MessageFinished(session_id=self.session_id, message_id=message.id, stopped=stopped)
        )

    async def _consume(
        self, provider: Provider, request: ChatRequest, message: MessageRecord, silence: _Silence
    ) -> tuple[StreamDone | None, bool]:
        """Read the stream; (the done item, whether the answer was cut at its length limit)."""
        done: StreamDone | None = None
        room = self.max_chars
        deltas = DeltaBatcher(self.publish, self.session_id, message.id)
        stream = provider.chat(request)
        try:
            async for item in stream:
                silence.last = time.monotonic()
                if isinstance(item, StreamDone):
                    done = item
                    continue
                if isinstance(item, ProviderNotice):  # the server is busy: say so while waiting
                    deltas.flush()
                    values = dict(
                        status=item.status,
                        seconds=math.ceil(item.retry_in_s),
                        attempt=item.attempt,
                        attempts=item.attempts,
                    )
                    text = notice_text("server_busy_retry", self.language, **values)
                    self.notice("server_busy_retry", text, level="warning", **values)
                    # The announced wait is not a silence: count it from the wait's end.
                    silence.last = time.monotonic() + item.retry_in_s
                    continue
                piece = storable(item.text)
                text = piece if len(piece) <= room else piece[:room]
                room -= len(text)
                if text and item.kind == "thinking":
                    self._thinking.add(text)
                    deltas.add("thinking", text, silence.last)
                elif text and (shown := self._show(text)):
                    self._content.add(shown)
                    deltas.add("content", shown, silence.last)
                if len(text) < len(piece):
                    return done, True
        finally:
            deltas.flush()  # before anything else is said about this message
            close = getattr(stream, "aclose", None)
            if close is not None:  # a cut answer closes its HTTP response now, not at GC
                await close()
        return done, False

    def _show(self, text: str) -> str:
        """Answer text to show now: a lone ``</think>`` taken out, then the call gate."""
        seen = self._thinking.length > 0
        return self._gate.feed(self._close_tag.feed(text, reasoning_seen=seen))

    async def _watch_silence(self, silence: _Silence) -> None:
        """Say "waiting for the model…" once per silence longer than ``waiting_after``."""
        after = self.waiting_after
        while True:
            quiet = time.monotonic() - silence.last
            if quiet < after:
                await asyncio.sleep(after - quiet)
                continue
            if silence.noticed != silence.last:
                silence.noticed = silence.last
                seconds = _seconds(quiet)
                self.notice(
                    "waiting_for_model",
                    notice_text("waiting_for_model", self.language, seconds=seconds),
                    level="info",
                    seconds=seconds,
                )
            await asyncio.sleep(min(after, 1.0))

    async def _save_periodically(self, message: MessageRecord) -> None:
        """Save the growing answer every second, also while the model is quiet."""
        content, thinking = self._content, self._thinking
        saved = (0, 0)
        while True:
            await asyncio.sleep(SAVE_INTERVAL)
            current = (content.length, thinking.length)  # the texts only grow
            if current != saved:
                self.chats.update_message(
                    message.id, content=content.value(), thinking=thinking.value()
                )
                saved = current
