"""How a stored summary stands in for the messages it covers (agent.history)."""

from __future__ import annotations

from tray_app.agent.history import TurnHistory
from tray_app.base.messages import ChatMessage
from tray_app.store.records import MessageRecord


def record(role: str, content: str, turn: str, **more: object) -> MessageRecord:
    return MessageRecord(session_id="s", turn_id=turn, role=role, content=content, **more)  # type: ignore[arg-type]


def chat() -> list[MessageRecord]:
    return [
        record("user", "Q1", "t1"),
        record("assistant", "A1 " * 5000, "t1"),  # ~3,750 tokens
        record("user", "Q2", "t2"),
        record("assistant", "A2 " * 600, "t2"),  # ~450 tokens
        record("user", "Q3", "t3"),
    ]


def test_a_stored_summary_replaces_what_it_covers_and_rides_in_the_system_message() -> None:
    records = chat()
    summary = record(
        "system",
        "总结：Q1 and A1 🙂",
        "t2",
        stats={"summary": True, "through": records[1].id, "covered": 2},
    )
    records.insert(3, summary)
    history = TurnHistory.load(records, "t3", vision=False, tool_result_limit=10_000)
    sent = history.messages(ChatMessage(role="system", content="Rules."), num_ctx=100_000)
    assert [m.role for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[0].content.startswith("Rules.\n\nSummary of the earlier part of this chat")
    assert sent[0].content.endswith("总结：Q1 and A1 🙂")
    assert [m.content[:2] for m in sent[1:]] == ["Q2", "A2", "Q3"]
    assert history.summary_plan(None, num_ctx=100_000) is None


def test_a_summary_whose_messages_were_deleted_is_not_used() -> None:
    records = chat()
    lost = record("system", "old", "t1", stats={"summary": True, "through": "m_gone", "covered": 9})
    history = TurnHistory.load([*records, lost], "t3", vision=False, tool_result_limit=10_000)
    sent = history.messages(None, num_ctx=100_000)
    assert [m.content[:2] for m in sent] == ["Q1", "A1", "Q2", "A2", "Q3"]


def test_the_plan_keeps_the_newest_messages_and_covers_the_rest() -> None:
    records = chat()
    history = TurnHistory.load(records, "t3", vision=False, tool_result_limit=10_000)
    plan = history.summary_plan(None, num_ctx=4_000)  # a budget of 3,200 tokens
    assert plan is not None
    assert plan.through == records[1].id and plan.covered == 2
    assert [m.content[:2] for m in plan.messages] == ["Q1", "A1"]
    history.use_summary(plan, "S")
    sent = history.messages(None, num_ctx=4_000)
    assert [m.content[:2] for m in sent] == ["Su", "Q2", "A2", "Q3"]
