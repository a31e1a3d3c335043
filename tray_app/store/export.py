"""A session as Markdown (to read or share) and as JSON (to back up and import again).

Both work on any ChatRepository. The JSON form is the records as they are stored, so
export -> import -> export gives the same document; Markdown is for people: one heading per
message, thinking as a quote, each tool call as a block with its arguments and outcome (long
strings shortened, so a written file's content does not swamp the page).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from tray_app.base.errors import StoreError
from tray_app.base.messages import ToolCallRecord
from tray_app.store.md_headings import demote_headings
from tray_app.store.records import ChatRepository, MessageRecord, SessionRecord

EXPORT_FORMAT = "metona-tray/session"
EXPORT_VERSION = 1
ARGUMENT_CHARS = 400
RESULT_CHARS = 1500

_ROLE_HEADINGS = {"user": "You", "assistant": "Assistant", "system": "System", "tool": "Tool"}


def export_json(chats: ChatRepository, session_id: str) -> dict[str, Any]:
    """Everything stored about a session, as plain JSON data. KeyError if there is none."""
    session = chats.get_session(session_id)
    if session is None:
        raise KeyError(session_id)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "session": session.model_dump(mode="json"),
        "messages": [m.model_dump(mode="json") for m in chats.messages(session_id)],
        "tool_calls": [c.model_dump(mode="json") for c in chats.tool_calls(session_id)],
    }


def parse_export(
    data: object,
) -> tuple[SessionRecord, list[MessageRecord], list[ToolCallRecord]]:
    """Check an export document; StoreError with a readable reason if it is not one."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise StoreError("This file is not a Metona Tray session export.")
    version = data.get("version")
    if not isinstance(version, int) or version > EXPORT_VERSION:
        raise StoreError(
            f"This session export has version {version!r}; this app reads up to "
            f"{EXPORT_VERSION}. Update the app to import it."
        )
    try:
        session = SessionRecord.model_validate(data.get("session"))
        messages = [MessageRecord.model_validate(m) for m in data.get("messages") or []]
        calls = [ToolCallRecord.model_validate(c) for c in data.get("tool_calls") or []]
    except (ValidationError, TypeError) as exc:
        raise StoreError(f"This session export is damaged: {exc}") from exc
    own = {"session_id": session.id}
    return (
        session,
        [m.model_copy(update=own) for m in messages],
        [c.model_copy(update=own) for c in calls],
    )


def export_markdown(chats: ChatRepository, session_id: str) -> str:
    """A readable transcript of a session. KeyError if there is none."""
    session = chats.get_session(session_id)
    if session is None:
        raise KeyError(session_id)
    calls: dict[str, list[ToolCallRecord]] = defaultdict(list)
    for call in chats.tool_calls(session_id):
        calls[call.message_id].append(call)
    out = [f"# {_one_line(session.title) or 'Untitled chat'}", ""]
    if session.model:
        out.append(f"- Model: {_code(session.model)}")
    if session.workspace:
        out.append(f"- Workspace: {_code(session.workspace)}")
    out += [f"- Started: {_when(session.created_at)}", f"- Updated: {_when(session.updated_at)}"]
    out.append("")
    answered_by_cards = False
    for message in chats.messages(session_id):
        if message.role == "assistant":
            answered_by_cards = bool(calls.get(message.id))
        elif message.role == "tool" and answered_by_cards:
            continue  # its result is already in the tool call's block
        elif message.role != "tool":
            answered_by_cards = False
        out += _message_block(message, calls.get(message.id, []))
    return "\n".join(out).rstrip() + "\n"


def _message_block(message: MessageRecord, calls: list[ToolCallRecord]) -> list[str]:
    heading = _ROLE_HEADINGS.get(message.role, message.role)
    if message.role == "tool" and message.tool_name:
        heading = f"Tool result: {_code(message.tool_name)}"
    out = [f"## {heading}", ""]
    if message.thinking.strip():
        out += ["> **Thinking**", ">"]
        out += [f"> {line}".rstrip() for line in message.thinking.strip().splitlines()]
        out.append("")
    if message.role == "tool":
        out += [_fenced(_shorten_text(message.content, RESULT_CHARS)), ""]
    elif message.content.strip():
        # The message's own headings go below its "## You" / "## Assistant".
        out += [demote_headings(message.content.strip()), ""]
    if message.images:
        count = len(message.images)
        out += [f"_[{count} image{'s' if count != 1 else ''} attached]_", ""]
    if calls:
        for call in calls:
            out += _call_block(call)
    else:
        for requested in message.tool_calls:
            out += [f"**Tool call {_code(requested.name)}**: not run", ""]
            out += [_fenced(_pretty(requested.arguments), "json"), ""]
    if message.stopped:
        if message.stats.get("interrupted"):
            out += ["_Interrupted: the app stopped before this answer was finished._", ""]
        else:
            out += ["_Stopped before the answer was finished._", ""]
    if message.error:
        out += [f"> **Error:** {_one_line(message.error)}", ""]
    return out


def _call_block(call: ToolCallRecord) -> list[str]:
    facts: list[str] = [call.status]
    if call.decision:
        who = f" by {call.decided_by}" if call.decided_by else ""
        facts.append(f"{call.decision}{who}")
    if call.duration_ms is not None:
        facts.append(f"{call.duration_ms:g} ms")
    out = [f"**Tool call {_code(call.name)}**: {', '.join(facts)}", ""]
    if call.arguments:
        out += [_fenced(_pretty(call.arguments), "json"), ""]
    result = call.result
    if result is None:
        out += ["Result: none yet", ""]
    elif result.get("success") is False:
        out += [f"Result: failed: {_one_line(str(result.get('error', 'no reason given')))}", ""]
    else:
        out += ["Result:", "", _fenced(_shorten_text(_pretty(result), RESULT_CHARS), "json"), ""]
    return out


def _pretty(value: Any) -> str:
    return json.dumps(_shorten(value), ensure_ascii=False, indent=2, default=str)


def _shorten(value: Any) -> Any:
    if isinstance(value, str):
        return _shorten_text(value, ARGUMENT_CHARS)
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    return value


def _shorten_text(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def _fenced(text: str, language: str = "") -> str:
    """A code block whose fence is longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _code(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).astimezone().isoformat(sep=" ", timespec="minutes")
