"""Who must be asked, and waiting for the answer.

The broker lives on the core loop. ``request`` publishes ``approval_needed`` and awaits a future;
``decide`` (from the popup, a notification, the tray or the terminal, always marshalled onto the
core loop by ``Core``) resolves it, and every consumer learns the outcome from
``approval_resolved``, so answering in one place resolves it everywhere.

A call started by ``metona-tray mcp serve --yes`` / ``--yes-all`` carries that flag
(``client_flag``); what the flag allows is approved here *before* anything is published, so no
card or notification appears only to be answered by the flag a moment later.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tray_app.base.events import (
    ApprovalNeeded,
    ApprovalResolved,
    ClientFlag,
    DecidedBy,
    Decision,
    Publish,
)
from tray_app.base.messages import AnyPreview, OtherPreview
from tray_app.tools.base import Risk

log = logging.getLogger(__name__)

ASKS_IN_EVERY_MODE = {Risk.DESTRUCTIVE, Risk.COMMAND}
#: Makes a lasting rule (tool, folder or None, "allow" | "deny") from an answered card.
RuleMaker = Callable[[str, str | None, str], Awaitable[None]]


def needs_confirmation(
    *,
    risk: Risk,
    mode: str,
    preview: AnyPreview | None,
    granted: bool,
    asks_when_exists: bool = False,
    unvouched_url: bool = False,
) -> bool:
    """Deletes and commands always ask; writes ask according to the mode.

    ``risk`` and ``asks_when_exists`` come from the tool's declaration (``tools.base.Tool``);
    no tool is named here. The preview declares facts of its own call: ``changes=False`` (a
    dry run, asks like a read), ``deletes`` (it would delete or replace a file: asks like a
    delete), ``persistence`` (the target makes something run later: asks in every mode, under
    every grant) and ``overwrites`` (asks in ``delete_only`` mode, like write_file over a file).
    ``unvouched_url``: the call goes to a URL the person did not write in this chat (asks in
    every mode but full auto, a read too).
    """
    facts = preview if preview is not None else OtherPreview()
    if facts.changes is False and risk is not Risk.COMMAND:
        return False
    if risk in ASKS_IN_EVERY_MODE or facts.deletes or facts.persistence is not None:
        return True
    if unvouched_url and mode != "full_auto":
        return True
    if risk is Risk.READ:
        return False
    if granted or mode == "full_auto":
        return False
    if mode == "delete_only":
        # A write asks when it would overwrite: the preview says so (``overwrites``), or the
        # declaration says an existing target is overwritten (write_file); a new folder never.
        return bool((asks_when_exists and facts.exists) or facts.overwrites)
    return True


def flag_allows(flag: ClientFlag | None, event: ApprovalNeeded) -> bool:
    """What an MCP client's flag approves: ``yes`` plain writes and a read that asks (a fetch
    of a URL no one wrote in the chat), ``yes_all`` deletes and commands too; never a target
    that makes something run later, nor a spent budget."""
    preview = event.preview
    if flag is None or preview.get("persistence") or preview.get("budget"):
        return False
    if flag == "yes_all":
        return True
    plain = (Risk.WRITE.value, Risk.READ.value)
    return event.risk in plain and not preview.get("deletes")


def can_remember(risk: Risk) -> bool:
    """ "Don't ask again this session" exists for write_file and create_directory only."""
    return risk is Risk.WRITE


@dataclass
class Outcome:
    decision: Decision
    by: DecidedBy
    remember: bool = False
    #: "Always allow <tool> in <folder>" (approved) or "Never" (denied): a lasting rule.
    rule: bool = False


@dataclass
class _Pending:
    event: ApprovalNeeded
    future: asyncio.Future[Outcome]
    created: float = field(default_factory=time.monotonic)


class ApprovalBroker:
    def __init__(self, publish: Publish, *, timeout: float) -> None:
        self._publish = publish
        self.timeout = timeout
        self._pending: dict[str, _Pending] = {}
        #: "Don't ask again" of each chat: tool -> when it was granted (epoch seconds).
        self._grants: dict[str, dict[str, float]] = {}
        self.on_change: Callable[[], None] | None = None
        self.on_rule: RuleMaker | None = None

    def granted(self, session_id: str, tool: str) -> bool:
        return tool in self._grants.get(session_id, set())

    def grant(self, session_id: str, tool: str) -> None:
        self._grants.setdefault(session_id, {}).setdefault(tool, time.time())

    def clear_grants(self, session_id: str) -> None:
        self._grants.pop(session_id, None)

    def grants(self) -> list[dict[str, Any]]:
        """Every session grant in force, oldest first (Settings › Permissions lists them)."""
        rows = [
            {"session_id": sid, "tool": tool, "created": made}
            for sid, tools in self._grants.items()
            for tool, made in tools.items()
        ]
        return sorted(rows, key=lambda row: row["created"])

    def revoke(self, session_id: str, tool: str) -> bool:
        """Take a grant back: the tool asks again in that chat. False when there was none."""
        tools = self._grants.get(session_id)
        if tools is None or tools.pop(tool, None) is None:
            return False
        if not tools:
            del self._grants[session_id]
        return True

    def pending(self) -> list[dict[str, Any]]:
        return [p.event.model_dump() for p in self._pending.values()]

    def pending_count(self) -> int:
        return len(self._pending)

    async def request(
        self, event: ApprovalNeeded, *, client_flag: ClientFlag | None = None
    ) -> Outcome:
        """Wait for a decision; the timeout counts as a denial. What ``client_flag`` allows is
        approved at once and never published."""
        if flag_allows(client_flag, event):
            return Outcome(decision="approved", by="mcp_flag")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Outcome] = loop.create_future()
        self._pending[event.call_id] = _Pending(event=event, future=future)
        self._publish(event)
        self._changed()
        try:
            outcome = await asyncio.wait_for(asyncio.shield(future), timeout=self.timeout)
        except asyncio.TimeoutError:
            outcome = Outcome(decision="timeout", by="timeout")
        except asyncio.CancelledError:
            self._resolve(event, Outcome(decision="cancelled", by="abort"))
            raise
        self._resolve(event, outcome)
        if outcome.decision == "approved" and outcome.remember and can_remember(Risk(event.risk)):
            self.grant(event.session_id, event.name)
        if outcome.rule and event.can_rule and outcome.decision in ("approved", "denied"):
            await self._make_rule(event, "allow" if outcome.decision == "approved" else "deny")
        return outcome

    async def _make_rule(self, event: ApprovalNeeded, action: str) -> None:
        """Keep the card's rule; a failure to save is logged, the call's answer stands."""
        if self.on_rule is None:
            return
        try:
            await self.on_rule(event.name, event.rule_folder, action)
        except Exception:
            log.exception("could not keep the rule for %s", event.name)

    def decide(
        self,
        call_id: str,
        approve: bool,
        *,
        remember: bool = False,
        by: DecidedBy = "popup",
        rule: bool = False,
    ) -> bool:
        """Answer a pending call (``rule``: and make it a lasting rule). False when it is no
        longer pending (answered elsewhere)."""
        pending = self._pending.get(call_id)
        if pending is None or pending.future.done():
            return False
        decision: Decision = "approved" if approve else "denied"
        outcome = Outcome(decision=decision, by=by, remember=remember, rule=rule)
        pending.future.set_result(outcome)
        return True

    def _resolve(self, event: ApprovalNeeded, outcome: Outcome) -> None:
        pending = self._pending.pop(event.call_id, None)
        if pending is None:
            return
        if not pending.future.done():
            pending.future.cancel()
        self._publish(
            ApprovalResolved(
                session_id=event.session_id,
                call_id=event.call_id,
                decision=outcome.decision,
                by=outcome.by,
            )
        )
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
