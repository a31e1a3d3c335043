"""Hold back streamed answer text that may be a tool call, until it is decided.

An answer that turns out to be a call (``text_calls``) must not be shown as text and then taken
away. So, like ``think_tags`` holds a partial tag, the gate holds:

- an answer that starts (after whitespace) with a call marker, ``{``, ``[`` or a code fence,
  until that is decided: a JSON value that closes as something other than a call to an offered
  tool is released at once, and so is a fence that is not ``json``/``tool_code`` or closes
  without a call inside; a marker holds to the end;
- from a call marker written later in the answer, to the end (the text before it streams);
- a possible marker cut at the end of a piece (``"<tool_"``), until the next piece decides it.

Each piece is looked at once: plain text without ``<``, ``[`` or a backtick passes through
with three ``in`` checks, so a long answer costs nothing measurable. What is held is bounded
by ``MAX_SCAN_CHARS``: past it the text could not be a call anyway and is released.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from tray_app.providers.text_calls.extract import extract_calls
from tray_app.providers.text_calls.markup import (
    FUNCTION_OPEN,
    MARKERS,
    MAX_SCAN_CHARS,
    MISTRAL,
    TOOL_CALL_OPEN,
)

Mode = Literal["start", "json", "fence", "text", "hold"]
_MARKER_CHARS = frozenset(marker[0] for marker in MARKERS)
_LONGEST_MARKER = max(len(marker) for marker in MARKERS)
_PREFIXES = frozenset(marker[:size] for marker in MARKERS for size in range(1, len(marker)))
_BY_FIRST_CHAR = {char: tuple(m for m in MARKERS if m[0] == char) for char in _MARKER_CHARS}
_HOLD_FENCES = frozenset({"", "json", "tool_call", "tool_calls", "tool_code"})
_INFO_LINE_LIMIT = 40  # characters of a fence's first line before it is decided to be text
#: Markers prose may name inside a line ("qwen marks a call with <tool_call> tags"): what
#: follows them decides at once whether a call can still come.
_WORDY_MARKERS = (TOOL_CALL_OPEN, MISTRAL, FUNCTION_OPEN)
_NAME_LIMIT = 100


def _call_follows(held: str, marker: str) -> bool | None:
    """Whether the text after a marker can still be a call (None: not known yet). A call
    body opens with ``{``, ``[`` or a tag, or is a name followed by ``<``, ``[``, ``>``, ``{``
    or a line break (GLM, ``[TOOL_CALLS]name[ARGS]``, ``<function=name>``)."""
    rest = held[len(marker) :].lstrip()
    if not rest:
        return None
    if marker != FUNCTION_OPEN and rest[0] in "{[<":
        return True
    size = 0
    while size < len(rest) and (rest[size].isalnum() or rest[size] in "_.-"):
        size += 1
    if size == len(rest):
        return None if size < _NAME_LIMIT else True
    return size > 0 and rest[size] in "<[>{\n"


def _partial_marker(text: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of a marker: only
    suffixes that start with a marker's first character are looked up."""
    tail_start = max(0, len(text) - _LONGEST_MARKER + 1)
    best = len(text)
    for char in _MARKER_CHARS:
        at = text.find(char, tail_start)
        while 0 <= at < best:
            if text[at:] in _PREFIXES:
                best = at
                break
            at = text.find(char, at + 1)
    return len(text) - best


def _first_marker(text: str) -> int:
    """Where the first marker in ``text`` starts (-1: none): only the places where a marker's
    first character stands are tried; one in inline code (after a backtick) is text."""
    first = -1
    for char in _MARKER_CHARS:
        at = text.find(char)
        while at >= 0 and (first < 0 or at < first):
            if (at == 0 or text[at - 1] != "`") and text.startswith(_BY_FIRST_CHAR[char], at):
                first = at
                break
            at = text.find(char, at + 1)
    return first


class TextCallGate:
    """One answer's gate: ``feed`` each content piece and show what it returns; ``held`` is
    what waits. With no tools offered it holds nothing."""

    def __init__(self, offered: Collection[str]) -> None:
        self._offered = offered
        self._mode: Mode = "start" if offered else "text"
        self._held: list[str] = []
        self._held_chars = 0
        self._carry = ""  # text mode: a possible marker cut at the end of the last piece
        # json mode: the scanner's state over the held value
        self._depth = 0
        self._opener = ""  # "{" or "["
        self._first: str | None = None  # the first character inside it
        self._quote = ""  # the quote of the string being read, if any
        self._escaped = False
        self._naming = False  # reading a python call's name
        self._last = ""  # the last character that was not white space
        self._fence_tail = ""  # fence mode: the last characters, for a close cut in two
        self._fence_lang_ok = False  # fence mode: its first line said json (or nothing)
        self._line_text = False  # the line shown last has text (a marker there is inside it)
        self._wordy = ""  # hold mode: the marker inside a line whose next words decide

    def held(self) -> str:
        """Everything not shown yet (the end of the stream, a stop or a cut decides it)."""
        return "".join(self._held) + self._carry

    def feed(self, text: str) -> str:
        """The part of ``text`` (with anything released) to show now."""
        if self._mode == "text":
            return self._text(text)
        if self._mode == "hold":
            return self._hold(text)
        self._add(text)
        if self._mode == "start":
            return self._start()
        if self._mode == "json":
            return self._json(text)
        return self._fence(text)

    # ---- modes --------------------------------------------------------------------------------

    def _start(self) -> str:
        probe = "".join(self._held).lstrip()
        if not probe:  # white space before anything: shown, so the probe stays short
            space = "".join(self._held)
            self._held, self._held_chars = [], 0
            return space
        for marker in MARKERS:
            if probe.startswith(marker):
                self._mode = "hold"
                return self._bounded()
            if marker.startswith(probe):
                return ""  # it may still become this marker
        if probe.startswith("```"):
            self._mode = "fence"
            return self._fence("")
        if probe[0] in "{[":
            self._mode = "json"
            self._opener = probe[0]
            held = self.held()
            return self._json(held[len(held) - len(probe) :])
        return self._release()

    def _json(self, new: str) -> str:
        """Scan the new characters of a held JSON value (or llama3.2's python-call list
        ``[name(a="x")]``); decide when it closes, release as soon as it cannot be a call."""
        for char in new:
            if self._first is None and self._depth and not char.isspace():
                self._first = char
                if char.isalpha() or char == "_":
                    if self._opener != "[":
                        return self._release()
                    self._naming = True
                    continue
                if char not in '"{':
                    return self._release()  # "{x" or "[1": not a call object
            if self._naming:  # a python call's name, then its "("
                if char.isalnum() or char in "_.":
                    continue
                self._naming = False
                if char != "(":
                    return self._release()  # "[x] done", "[Link text](…)"
            if self._quote:
                if self._escaped:
                    self._escaped = False
                elif char == "\\":
                    self._escaped = True
                elif char == self._quote:
                    self._quote = ""
            elif char == '"' or (char == "'" and self._last in "=(,[:"):
                self._quote = char
            elif char in "{[(":
                self._depth += 1
            elif char in "}])":
                self._depth -= 1
                if self._depth <= 0:
                    return self._decide()
            if not char.isspace():
                self._last = char
        return self._bounded()

    def _fence(self, new: str) -> str:
        if not self._fence_lang_ok:
            held = self.held()
            body_start = held.find("```") + 3
            newline = held.find("\n", body_start)
            if newline < 0:
                return self._release() if len(held) > _INFO_LINE_LIMIT else ""
            if held[body_start:newline].strip().lower() not in _HOLD_FENCES:
                return self._release()
            self._fence_lang_ok = True
            new = held[newline:]  # the body so far: where the closing fence is looked for
        tail = self._fence_tail + new
        self._fence_tail = tail[-3:]
        if "\n```" not in tail:  # closed by a fence line: "```" inside a JSON string is not one
            return self._bounded()
        return self._decide()

    def _decide(self) -> str:
        """A held value closed: a call holds on to the end, anything else is released."""
        if extract_calls(self.held(), self._offered).calls:
            self._mode = "hold"
            return self._bounded()
        return self._release()

    def _hold(self, text: str) -> str:
        self._add(text)
        if self._wordy:
            marker, held = self._wordy, self.held()
            follows = _call_follows(held, marker)
            if follows is False:  # prose naming the markup: show it, read on
                self._held, self._held_chars, self._wordy = [], 0, ""
                self._mode = "text"
                self._line_text = True
                return held[: len(marker)] + self._text(held[len(marker) :])
            if follows:
                self._wordy = ""
        return self._bounded()

    def _text(self, text: str) -> str:
        text = self._carry + text
        self._carry = ""
        if not self._offered:
            return text
        if "<" not in text and "[" not in text and "`" not in text:
            return self._shown(text)  # the plain text of almost every piece
        first = _first_marker(text)
        if first >= 0:
            before = self._shown(text[:first])
            self._mode = "hold"
            marker = next((m for m in _WORDY_MARKERS if text.startswith(m, first)), "")
            self._wordy = marker if self._line_text else ""
            return before + self._hold(text[first:])
        keep = _partial_marker(text)
        if keep:
            self._carry = text[len(text) - keep :]
            return self._shown(text[: len(text) - keep])
        return self._shown(text)

    def _shown(self, text: str) -> str:
        """``text`` goes to the user: remember whether its last line has words."""
        if self._line_text and "\n" not in text:
            return text
        newline = text.rfind("\n")
        if newline >= 0:
            self._line_text = bool(text[newline + 1 :].strip())
        elif not self._line_text and text:
            self._line_text = bool(text.strip())
        return text

    # ---- holding ------------------------------------------------------------------------------

    def _add(self, text: str) -> None:
        if text:
            self._held.append(text)
            self._held_chars += len(text)

    def _bounded(self) -> str:
        """Past ``MAX_SCAN_CHARS`` nothing is scanned for calls: show what waits, and stop
        holding for the rest of this answer."""
        if self._held_chars > MAX_SCAN_CHARS:
            self._offered = ()
            return self._release()
        return ""

    def _release(self) -> str:
        text = "".join(self._held)
        self._held, self._held_chars = [], 0
        self._mode = "text"
        return self._text(text)
