"""Who is asked, in which mode; the broker's timeout, grants and 'answered elsewhere'."""

from __future__ import annotations

import asyncio
import time

import pytest
from pydantic import BaseModel

from tray_app.agent.approval import ApprovalBroker, needs_confirmation
from tray_app.base.events import ApprovalNeeded, ApprovalResolved, ClientFlag
from tray_app.base.messages import parse_preview
from tray_app.tools.base import Risk
from tray_app.tools.registry import builtin_tools

DECLARED = {tool.name: tool for tool in builtin_tools()}


@pytest.mark.parametrize(
    ("tool", "risk", "mode", "exists", "expected"),
    [
        ("read_file", Risk.READ, "all_writes", False, False),
        ("write_file", Risk.WRITE, "all_writes", False, True),
        ("create_directory", Risk.WRITE, "all_writes", False, True),
        ("write_file", Risk.WRITE, "delete_only", False, False),
        ("write_file", Risk.WRITE, "delete_only", True, True),
        ("create_directory", Risk.WRITE, "delete_only", False, False),
        ("create_directory", Risk.WRITE, "delete_only", True, False),
        ("write_file", Risk.WRITE, "full_auto", True, False),
        ("delete_file", Risk.DESTRUCTIVE, "full_auto", True, True),
        ("run_command", Risk.COMMAND, "full_auto", False, True),
        ("delete_file", Risk.DESTRUCTIVE, "delete_only", True, True),
    ],
)
def test_modes(tool: str, risk: Risk, mode: str, exists: bool, expected: bool) -> None:
    """The facts come from each tool's own declaration, never from its name."""
    declared = DECLARED[tool]
    assert declared.risk is risk
    got = needs_confirmation(
        risk=declared.risk,
        asks_when_exists=declared.asks_when_exists,
        mode=mode,
        preview=parse_preview({"kind": "path", "exists": exists}),
        granted=False,
    )
    assert got is expected


def test_a_session_grant_skips_writes_but_never_deletes_or_commands() -> None:
    assert not needs_confirmation(risk=Risk.WRITE, mode="all_writes", preview=None, granted=True)
    assert needs_confirmation(risk=Risk.DESTRUCTIVE, mode="all_writes", preview=None, granted=True)
    assert needs_confirmation(risk=Risk.COMMAND, mode="all_writes", preview=None, granted=True)


MODES = ("all_writes", "delete_only", "full_auto")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("granted", [False, True])
def test_facts_the_preview_declares(mode: str, granted: bool) -> None:
    """Dry runs never ask; a replaced file or a persistence location always asks."""

    def asks(preview: dict[str, object], risk: Risk = Risk.WRITE) -> bool:
        return needs_confirmation(
            risk=risk, mode=mode, preview=parse_preview(preview), granted=granted
        )

    assert not asks({"kind": "diff", "changes": False, "overwrites": True})
    assert asks({"kind": "move", "deletes": True, "overwrites": True})
    warning = {"code": "login", "text": "runs at login"}
    assert asks({"kind": "diff", "persistence": warning})
    assert asks({"kind": "file", "persistence": warning}, Risk.DESTRUCTIVE)
    assert asks({"changes": False}, Risk.COMMAND)  # only file tools may declare a dry run
    if mode == "delete_only" and not granted:
        assert asks({"kind": "diff", "exists": True, "overwrites": True})
        assert not asks({"kind": "move", "exists": False})


async def _until_pending(broker: ApprovalBroker) -> None:
    """Wait for the broker to hold a request (it calls on_change when one arrives)."""
    changed = asyncio.Event()
    broker.on_change = changed.set
    if not broker.pending_count():
        await asyncio.wait_for(changed.wait(), 5)


def _event(call_id: str, risk: str = "write", name: str = "write_file") -> ApprovalNeeded:
    return ApprovalNeeded(
        session_id="s1",
        call_id=call_id,
        name=name,
        arguments={"path": "a.txt"},
        risk=risk,
        preview={},
        can_remember=risk == "write",
        expires_at=time.time() + 60,
    )


async def test_decide_resolves_once_and_publishes_the_outcome() -> None:
    published: list[BaseModel] = []
    broker = ApprovalBroker(published.append, timeout=30)
    waiter = asyncio.create_task(broker.request(_event("c1")))
    await _until_pending(broker)
    assert broker.decide("c1", True, remember=True, by="notification")
    assert not broker.decide("c1", False)  # already answered elsewhere
    outcome = await waiter
    assert outcome.decision == "approved" and outcome.by == "notification"
    resolved = [e for e in published if isinstance(e, ApprovalResolved)]
    assert [(r.call_id, r.decision, r.by) for r in resolved] == [("c1", "approved", "notification")]
    assert broker.granted("s1", "write_file")
    assert broker.pending_count() == 0


async def test_remember_is_ignored_for_deletes() -> None:
    broker = ApprovalBroker(lambda e: None, timeout=30)
    waiter = asyncio.create_task(
        broker.request(_event("c2", risk="destructive", name="delete_file"))
    )
    await _until_pending(broker)
    broker.decide("c2", True, remember=True)
    await waiter
    assert not broker.granted("s1", "delete_file")


async def test_no_answer_within_the_timeout_counts_as_denied() -> None:
    published: list[BaseModel] = []
    broker = ApprovalBroker(published.append, timeout=0.05)
    outcome = await broker.request(_event("c3"))
    assert outcome.decision == "timeout"
    assert broker.pending_count() == 0
    assert any(isinstance(e, ApprovalResolved) and e.decision == "timeout" for e in published)


async def test_cancelling_the_wait_withdraws_the_request() -> None:
    published: list[BaseModel] = []
    broker = ApprovalBroker(published.append, timeout=30)
    waiter = asyncio.create_task(broker.request(_event("c4")))
    await _until_pending(broker)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert broker.pending_count() == 0
    assert not broker.decide("c4", True)
    assert any(isinstance(e, ApprovalResolved) and e.decision == "cancelled" for e in published)


@pytest.mark.parametrize(
    ("flag", "risk", "facts", "approved"),
    [
        ("yes", "write", {}, True),
        ("yes", "write", {"deletes": True}, False),  # replaces a file: asks like a delete
        ("yes", "destructive", {}, False),
        ("yes", "command", {}, False),
        ("yes_all", "destructive", {}, True),
        ("yes_all", "command", {}, True),
        ("yes_all", "write", {"persistence": {"kind": "autostart"}}, False),
        ("yes_all", "destructive", {"budget": {"text": "over 20 files"}}, False),
        (None, "write", {}, False),
    ],
)
async def test_an_mcp_clients_flag_answers_before_anything_is_published(
    flag: ClientFlag | None, risk: str, facts: dict[str, object], approved: bool
) -> None:
    """``mcp serve --yes/--yes-all``: what the flag allows is approved without an
    ``approval_needed`` (no card or notification flashes); the rest waits for the person."""
    published: list[BaseModel] = []
    broker = ApprovalBroker(published.append, timeout=30)
    event = _event("c5", risk=risk).model_copy(update={"preview": facts})
    waiter = asyncio.create_task(broker.request(event, client_flag=flag))
    if approved:
        outcome = await asyncio.wait_for(waiter, 5)
        assert (outcome.decision, outcome.by) == ("approved", "mcp_flag")
        assert published == []
        return
    await _until_pending(broker)
    assert [type(e) for e in published] == [ApprovalNeeded]
    broker.decide("c5", False, by="popup")
    assert (await waiter).by == "popup"
