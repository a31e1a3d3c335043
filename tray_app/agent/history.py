"""The messages one turn sends, kept in memory from its first round to its last.

A turn of 100 rounds used to reload the whole chat from the store, validate every message
again and re-trim it in every round, so late rounds cost several times the early ones. Here
the chat is read and converted once when the turn starts; what the turn adds (its answers and
tool results) is appended as it happens. Each message's token estimate is computed once, the
earlier history's groups and their costs once, and each round walks back from the newest group
only as far as the budget reaches, copying only what it keeps.

A chat longer than the context keeps its memory in a summary (``agent.summary``): a stored
message (role ``system``, ``stats.summary``) that stands for every message up to the one it
names in ``stats.through``. Those messages are not sent again; the summary text goes into the
system message (a system message in the middle of a chat, or two user messages in a row, are
refused by strict chat templates such as Mistral's). ``summary_plan`` says which older messages
to summarise when the earlier history no longer fits.

The current turn must fit too: when its tool results would push a request past the budget,
the oldest ones are replaced by a one-line stub (the model sees a result was there and how
long it was), then the oldest thinking is dropped. The user's message, the answers' text and
the newest round's results (what the model just asked for) are never cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tray_app.agent.context import (
    BUDGET_SHARE,
    MESSAGE_OVERHEAD,
    estimate_tokens,
    group_spans,
    message_tokens,
    shrink_message,
)
from tray_app.base.messages import ChatMessage, image_note
from tray_app.providers.tool_images import cap_images
from tray_app.store.records import MessageRecord


@dataclass
class _Entry:
    """A message as sent and its token estimate (computed once)."""

    message: ChatMessage
    tokens: int

    @classmethod
    def of(cls, message: ChatMessage) -> _Entry:
        return cls(message, message_tokens(message))

    def as_stub(self) -> int:
        """What the message costs once stubbed, as ``tokens_left`` counts an old tool result;
        other messages are never stubbed and cost what they cost."""
        if self.message.role != "tool":
            return self.tokens
        return MESSAGE_OVERHEAD + estimate_tokens(omitted_result(len(self.message.content)))


def omitted_result(characters: int) -> str:
    """What the model sees instead of an old tool result that no longer fits."""
    return f"[an earlier tool result of {characters} characters, left out to fit the context]"


def _noted(message: ChatMessage, why: str, *, keep: int = 0) -> ChatMessage:
    """The message with only its last ``keep`` images, a note for each other after its text."""
    dropped = message.images[: len(message.images) - keep]
    notes = "\n".join(image_note(data, why) for data in dropped)
    kept = message.images[len(dropped) :]
    return message.model_copy(update={"images": kept, "content": f"{message.content}\n{notes}"})


def _hold_newest_images(entries: list[_Entry]) -> list[int]:
    """Keep only the images a request can carry (the newest: ``cap_images``); older ones
    become the note the request would carry instead, so a turn full of screenshots does not
    hold them all in memory. The indexes of the entries replaced."""
    messages = [e.message for e in entries]
    capped = cap_images(messages)
    changed = [
        i for i, (old, new) in enumerate(zip(messages, capped, strict=True)) if new is not old
    ]
    for index in changed:
        entries[index] = _Entry.of(capped[index])
    return changed


def useful(record: MessageRecord) -> bool:
    """An answer that failed or was stopped before saying anything is not sent back."""
    return record.role != "assistant" or bool(record.content or record.tool_calls)


def is_summary(record: MessageRecord) -> bool:
    """A stored summary of older messages (``agent.summary``), not a message of the chat."""
    return record.role == "system" and bool(record.stats.get("summary"))


#: What the earlier history may take of the budget once a summary was made: the rest is room
#: for the chat to grow before the next summary.
KEEP_SHARE = 0.5


def with_summary(system: ChatMessage | None, summary: str) -> ChatMessage | None:
    """The system message with the summary of the older messages after it."""
    if not summary:
        return system
    note = (
        "Summary of the earlier part of this chat (the older messages were summarised to fit "
        f"the context):\n{summary}"
    )
    if system is None:
        return ChatMessage(role="system", content=note)
    return system.model_copy(update={"content": f"{system.content}\n\n{note}"})


@dataclass(frozen=True)
class SummaryPlan:
    """Older messages to summarise: with the previous summary, they become one new summary
    that stands for everything up to ``through`` (a stored message id)."""

    previous: str
    messages: list[ChatMessage]
    through: str
    covered: int  # stored messages the new summary stands for, the previous summary's included


@dataclass
class TurnHistory:
    """Earlier history (fixed for the turn) and the current turn (appended as it grows)."""

    turn_id: str
    vision: bool
    tool_result_limit: int
    _earlier: list[_Entry] = field(default_factory=list)
    _earlier_ids: list[str] = field(default_factory=list)  # the stored id of each entry
    _summary: str = ""  # the newest stored summary's text
    _summarised: int = 0  # the stored messages it stands for
    _spans: list[tuple[int, int, int]] = field(default_factory=list)  # (start, end, tokens)
    _current: list[_Entry] = field(default_factory=list)
    _pending: list[MessageRecord] = field(default_factory=list)  # added, not yet converted
    _stubs: dict[int, _Entry] = field(default_factory=dict)  # index in _current -> stubbed
    _lean: dict[int, _Entry] = field(default_factory=dict)  # index -> thinking dropped
    _blind: dict[tuple[int, int], _Entry] = field(default_factory=dict)  # (index, kept)
    _user_images: bool = False  # the user attached images to the current turn
    # Kept as the turn grows, so a round costs the same at round 100 as at round 2: the sums
    # of the current turn's estimates, whole (``_sum_whole``) and with tool results counted
    # as stubs (``_sum_stubbed``), over its first i messages; and its newest assistant message.
    _sum_whole: list[int] = field(default_factory=lambda: [0])
    _sum_stubbed: list[int] = field(default_factory=lambda: [0])
    _last_ask: int = 0

    @classmethod
    def load(
        cls, records: list[MessageRecord], turn_id: str, *, vision: bool, tool_result_limit: int
    ) -> TurnHistory:
        history = cls(turn_id, vision, tool_result_limit)
        start = next((i for i, r in enumerate(records) if r.turn_id == turn_id), len(records))
        first = history._take_summary(records)
        kept = [r for r in records[first:start] if useful(r) and not is_summary(r)]
        history._set_earlier(kept)
        history._pending = [r for r in records[start:] if not is_summary(r)]
        return history

    def _take_summary(self, records: list[MessageRecord]) -> int:
        """Read the newest summary; the index of the first record it does not stand for."""
        for record in reversed(records):
            if not is_summary(record):
                continue
            through = record.stats.get("through")
            index = next((i for i, r in enumerate(records) if r.id == through), None)
            if index is None:  # what it summarised was deleted (edit and resend): unused
                continue
            self._summary = record.content
            self._summarised = _int(record.stats.get("covered"))
            return index + 1
        return 0

    def _set_earlier(self, records: list[MessageRecord]) -> None:
        earlier = [_Entry.of(self._convert(r, keep_thinking=False)) for r in records]
        _hold_newest_images(earlier)
        self._earlier = earlier
        self._earlier_ids = [r.id for r in records]
        self._spans = [
            (a, b, sum(e.tokens for e in earlier[a:b]))
            for a, b in group_spans([e.message for e in earlier])
        ]

    @property
    def has_images(self) -> bool:
        """Whether the user attached images to the current turn (before a non-vision model
        drops them); a tool's images are noted in its result instead (``_convert``)."""
        self._absorb()
        return self._user_images

    def add(self, record: MessageRecord) -> None:
        """A message the turn stored (an answer once finished, a tool result)."""
        self._pending.append(record)

    @property
    def summary(self) -> str:
        return self._summary

    def summary_plan(self, system: ChatMessage | None, *, num_ctx: int) -> SummaryPlan | None:
        """The older messages to summarise when the earlier history does not fit beside the
        system message and the current turn (``None`` when it does): all but the newest
        groups that fit ``KEEP_SHARE`` of the budget, so the next turns have room to grow."""
        self._absorb()
        budget = int(num_ctx * BUDGET_SHARE)
        head = with_summary(system, self._summary)
        fixed = (_Entry.of(head).tokens if head is not None else 0) + self._sum_whole[-1]
        if fixed + sum(cost for _, _, cost in self._spans) <= budget or fixed >= budget:
            return None  # it fits, or the current turn alone fills the budget
        room = min(int(budget * KEEP_SHARE), budget - fixed)
        keep_from, used = len(self._earlier), 0
        for a, _, cost in reversed(self._spans):
            if used + cost > room:
                break
            used += cost
            keep_from = a
        if keep_from == 0:
            return None  # nothing older than what fits (the current turn is what is too big)
        return SummaryPlan(
            previous=self._summary,
            messages=[e.message for e in self._earlier[:keep_from]],
            through=self._earlier_ids[keep_from - 1],
            covered=self._summarised + keep_from,
        )

    def use_summary(self, plan: SummaryPlan, text: str) -> None:
        """From now on ``text`` stands for the messages of ``plan``."""
        keep_from = len(plan.messages)
        self._summary, self._summarised = text, plan.covered
        self._earlier = self._earlier[keep_from:]
        self._earlier_ids = self._earlier_ids[keep_from:]
        self._spans = [
            (a - keep_from, b - keep_from, c) for a, b, c in self._spans if a >= keep_from
        ]

    def messages(self, system: ChatMessage | None, *, num_ctx: int) -> list[ChatMessage]:
        """System (with the summary of older messages) + as much earlier history as fits + the
        whole current turn, within budget."""
        self._absorb()
        budget = int(num_ctx * BUDGET_SHARE)
        system = with_summary(system, self._summary)
        head = [] if system is None else [_Entry.of(system)]
        current, used = self._fit_current(budget - sum(e.tokens for e in head))
        used += sum(e.tokens for e in head)
        start = len(self._earlier)
        for a, _, cost in reversed(self._spans):
            if used + cost > budget:
                break
            used += cost
            start = a
        kept = self._earlier[start:]
        while kept and kept[0].message.role == "tool":  # never an orphan tool result
            kept = kept[1:]
        return [e.message for e in (*head, *kept)] + current

    def tokens_left(self, *, num_ctx: int) -> int:
        """Tokens a new tool result may take within the budget: earlier chats give way, and
        the current turn's older tool results count as the stubs they become when room is
        needed (``_fit_current``); the results of the newest round are kept whole."""
        self._absorb()
        ask = self._last_ask
        used = self._sum_stubbed[ask] + self._sum_whole[-1] - self._sum_whole[ask]
        return int(num_ctx * BUDGET_SHARE) - used

    # ---- inside ----------------------------------------------------------------------------

    def _convert(self, record: MessageRecord, *, keep_thinking: bool) -> ChatMessage:
        message = shrink_message(
            record.to_chat_message(),
            tool_result_limit=self.tool_result_limit,
            keep_thinking=keep_thinking,
        )
        if not message.images or self.vision:
            return message
        if message.role == "tool":  # the model is told a tool's images were there
            return _noted(message, "not shown to this model")
        return message.model_copy(update={"images": []})

    def _absorb(self) -> None:
        """Convert what was added since the last request (each record exactly once)."""
        images = False
        for record in self._pending:
            images = images or bool(record.images)
            self._user_images = self._user_images or bool(record.images and record.role == "user")
            if useful(record):
                entry = _Entry.of(self._convert(record, keep_thinking=True))
                if entry.message.role == "assistant":
                    self._last_ask = len(self._current)
                self._current.append(entry)
                self._sum_whole.append(self._sum_whole[-1] + entry.tokens)
                self._sum_stubbed.append(self._sum_stubbed[-1] + entry.as_stub())
        self._pending.clear()
        if images and self.vision:
            changed = _hold_newest_images(self._current)
            for index in changed:
                self._stubs.pop(index, None)
                self._lean.pop(index, None)
                self._blind = {k: v for k, v in self._blind.items() if k[0] not in changed}
            if changed:  # older images became notes: the sums from there on change
                self._resum(min(changed))

    def _resum(self, start: int) -> None:
        del self._sum_whole[start + 1 :], self._sum_stubbed[start + 1 :]
        for entry in self._current[start:]:
            self._sum_whole.append(self._sum_whole[-1] + entry.tokens)
            self._sum_stubbed.append(self._sum_stubbed[-1] + entry.as_stub())

    def _fit_current(self, room: int) -> tuple[list[ChatMessage], int]:
        """The current turn's messages, old tool results stubbed and old thinking dropped
        (oldest first) until they fit ``room``; the choice is the same in every round."""
        entries = list(self._current)
        used = self._sum_whole[-1]
        if used <= room:
            return [e.message for e in entries], used
        # The newest round's results are what the model just asked for: never stubbed.
        for index, entry in enumerate(entries[: self._last_ask]):
            if used <= room:
                break
            if entry.message.role == "tool":
                stub = self._stubs.get(index)
                if stub is None:
                    text = omitted_result(len(entry.message.content))
                    update = {"content": text, "images": []}  # its images go with it
                    stub = _Entry.of(entry.message.model_copy(update=update))
                    self._stubs[index] = stub
                used += stub.tokens - entry.tokens
                entries[index] = stub
        for index, entry in enumerate(entries[:-1]):  # the newest answer keeps its thinking
            if used <= room:
                break
            if entry.message.thinking:
                lean = self._lean.get(index)
                if lean is None:
                    lean = _Entry.of(entry.message.model_copy(update={"thinking": ""}))
                    self._lean[index] = lean
                used += lean.tokens - entry.tokens
                entries[index] = lean
        for index, entry in enumerate(entries):  # then a tool's images, oldest first
            if used <= room:
                break
            if entry.message.images and entry.message.role == "tool":
                blind = self._fewer_images(index, entry, room - used + entry.tokens)
                used += blind.tokens - entry.tokens
                entries[index] = blind
        return [e.message for e in entries], used

    def _fewer_images(self, index: int, entry: _Entry, room: int) -> _Entry:
        """The entry with as many of its newest images as fit ``room`` tokens (maybe none),
        a note for each other."""
        images = len(entry.message.images)
        for keep in range(images - 1, -1, -1):
            blind = self._blind.get((index, keep))
            if blind is None:
                why = "left out to fit the context"
                blind = _Entry.of(_noted(entry.message, why, keep=keep))
                self._blind[(index, keep)] = blind
            if blind.tokens <= room or keep == 0:
                return blind
        return entry  # not reached: a tool entry here has images


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
