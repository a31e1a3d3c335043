"""Exporting a session as Markdown and JSON, and importing the JSON again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tray_app.base.errors import StoreError
from tray_app.base.messages import ToolCall, ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import MessageRecord, SessionRecord


def build_chat(chats: SQLiteChats) -> SessionRecord:
    session = chats.create_session(model="qwen3:8b", workspace="/home/u/proj", title="Fix `main`")
    chats.add_message(
        MessageRecord(
            session_id=session.id, role="user", content="Write a hello file", images=["x"]
        )
    )
    asked = MessageRecord(
        session_id=session.id,
        role="assistant",
        thinking="I should write it.\nThen check.",
        content="Writing it now.",
        tool_calls=[
            ToolCall(id="p1", name="write_file", arguments={"path": "/tmp/h.txt"}),
            ToolCall(id="p2", name="delete_file", arguments={"path": "/tmp/old"}),
        ],
        stats={"prompt_tokens": 3},
    )
    chats.add_message(asked)
    long_content = "line of text\n" * 200
    chats.upsert_tool_call(
        ToolCallRecord(
            call_id="c_1",
            session_id=session.id,
            message_id=asked.id,
            provider_id="p1",
            name="write_file",
            arguments={"path": "/tmp/h.txt", "content": long_content},
            risk="write",
            status="success",
            decision="approved",
            decided_by="popup",
            result={"success": True, "path": "/tmp/h.txt", "bytesWritten": len(long_content)},
            duration_ms=3.5,
        )
    )
    chats.upsert_tool_call(
        ToolCallRecord(
            call_id="c_2",
            session_id=session.id,
            message_id=asked.id,
            provider_id="p2",
            name="delete_file",
            arguments={"path": "/tmp/old"},
            risk="destructive",
            status="cancelled",
            decision="denied",
            decided_by="notification",
            result={"success": False, "error": "delete_file was not run: the user denied it"},
        )
    )
    for call_id in ("p1", "p2"):
        chats.add_message(
            MessageRecord(
                session_id=session.id,
                role="tool",
                tool_call_id=call_id,
                tool_name="write_file",
                content="RAW TOOL MESSAGE",
            )
        )
    chats.add_message(
        MessageRecord(
            session_id=session.id,
            role="assistant",
            content="Done. Use ```code``` like this:\n```\nx = 1\n```",
            stopped=True,
            stats={"interrupted": True},
        )
    )
    return session


def test_markdown_is_a_readable_transcript(sqlite_chats: SQLiteChats) -> None:
    session = build_chat(sqlite_chats)
    text = sqlite_chats.export_markdown(session.id)
    assert text.startswith("# Fix `main`\n")
    assert "- Model: `qwen3:8b`" in text and "- Workspace: `/home/u/proj`" in text
    assert "## You\n\nWrite a hello file" in text and "_[1 image attached]_" in text
    assert "> **Thinking**\n>\n> I should write it.\n> Then check." in text
    assert "**Tool call `write_file`**: success, approved by popup, 3.5 ms" in text
    assert '"path": "/tmp/h.txt"' in text
    assert "more characters)" in text  # the written content is shortened
    assert text.count("line of text") < 50
    assert "**Tool call `delete_file`**: cancelled, denied by notification" in text
    assert "Result: failed: delete_file was not run: the user denied it" in text
    assert "RAW TOOL MESSAGE" not in text  # shown through the cards instead
    assert "_Interrupted: the app stopped before this answer was finished._" in text
    assert "Done. Use ```code``` like this:\n```\nx = 1\n```" in text


def test_markdown_shows_tool_messages_without_cards(sqlite_chats: SQLiteChats) -> None:
    session = sqlite_chats.create_session(model="m", workspace=None)
    sqlite_chats.add_message(
        MessageRecord(
            session_id=session.id,
            role="assistant",
            tool_calls=[ToolCall(name="read_file", arguments={"path": "/a"})],
        )
    )
    sqlite_chats.add_message(
        MessageRecord(session_id=session.id, role="tool", tool_name="read_file", content="`x```")
    )
    text = sqlite_chats.export_markdown(session.id)
    assert "# Untitled chat" in text
    assert "**Tool call `read_file`**: not run" in text
    assert "## Tool result: `read_file`\n\n````\n`x```\n````" in text
    with pytest.raises(KeyError):
        sqlite_chats.export_markdown("s_missing")


def test_json_round_trip_into_a_fresh_database(sqlite_chats: SQLiteChats, tmp_path: Path) -> None:
    session = build_chat(sqlite_chats)
    exported = sqlite_chats.export_json(session.id)
    file = tmp_path / "export.json"
    file.write_text(json.dumps(exported), encoding="utf-8")

    fresh = SQLiteChats(open_database(AppPaths.under(tmp_path / "other").database_file))
    try:
        imported = fresh.import_json(json.loads(file.read_text(encoding="utf-8")))
        assert imported == session
        assert fresh.export_json(session.id) == exported
        assert fresh.export_markdown(session.id) == sqlite_chats.export_markdown(session.id)
    finally:
        fresh.close()


def test_importing_twice_gives_a_second_copy_with_new_ids(sqlite_chats: SQLiteChats) -> None:
    session = build_chat(sqlite_chats)
    exported = sqlite_chats.export_json(session.id)
    copy = sqlite_chats.import_json(exported)
    assert copy.id != session.id and copy.title == session.title
    originals = sqlite_chats.messages(session.id)
    copies = sqlite_chats.messages(copy.id)
    assert [m.content for m in copies] == [m.content for m in originals]
    assert not {m.id for m in copies} & {m.id for m in originals}
    calls = sqlite_chats.tool_calls(copy.id)
    assert {c.message_id for c in calls} == {copies[1].id}
    assert len(sqlite_chats.tool_calls(session.id)) == 2


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ([], "not a Metona Tray session export"),
        ({"format": "other"}, "not a Metona Tray session export"),
        ({"format": "metona-tray/session", "version": 99}, "version 99"),
        ({"format": "metona-tray/session", "version": 1, "session": {"id": 5}}, "damaged"),
        (
            {"format": "metona-tray/session", "version": 1, "session": {}, "messages": [{}]},
            "damaged",
        ),
    ],
)
def test_a_bad_document_is_refused(
    sqlite_chats: SQLiteChats, document: object, reason: str
) -> None:
    with pytest.raises(StoreError, match=reason):
        sqlite_chats.import_json(document)
    assert sqlite_chats.list_sessions() == []


def test_an_answers_headings_go_below_the_role_headings(sqlite_chats: SQLiteChats) -> None:
    session = sqlite_chats.create_session(model="m", workspace=None, title="标题")
    answer = (
        "# 总结 📋\n\nIntro\n\n## Steps\n\n```python\n# not a heading\n## nor this\n```\n\n"
        "~~~~\n# inside tildes\n~~~\n# still inside\n~~~~\n\n"
        "Setext title\n============\n\nSub title\n---\n\n    # indented code\n\n"
        "###### deepest\n#hashtag is text\n\\# escaped"
    )
    sqlite_chats.add_message(MessageRecord(session_id=session.id, role="user", content="# 问题"))
    sqlite_chats.add_message(MessageRecord(session_id=session.id, role="assistant", content=answer))
    text = sqlite_chats.export_markdown(session.id)
    assert "## You\n\n### 问题\n" in text
    assert "## Assistant\n\n### 总结 📋\n" in text
    assert "\n#### Steps\n" in text
    assert "```python\n# not a heading\n## nor this\n```" in text
    assert "~~~~\n# inside tildes\n~~~\n# still inside\n~~~~" in text
    assert "\n### Setext title\n\n#### Sub title\n" in text
    assert "\n    # indented code\n" in text
    assert "\n###### deepest\n#hashtag is text\n\\# escaped" in text
    # Outside code, only the document's title and the role headings are at levels 1 and 2.
    prose = re.sub(r"```.*?```|~~~~.*?~~~~", "", text, flags=re.S)
    top = [line for line in prose.splitlines() if re.match(r"#{1,2} ", line)]
    assert top == ["# 标题", "## You", "## Assistant"]


def test_demoting_a_huge_answer_is_linear() -> None:
    from tray_app.store.md_headings import demote_headings

    text = ("```\n" + "# x\n" * 50_000) + ("#" * 100_000 + "\n") + "a\n" + "=" * 100_000
    out = demote_headings(text)
    assert out.count("\n") == text.count("\n")
