"""The running sums behind ``TurnHistory.tokens_left`` and the fit: the same answers as
counting the whole turn again, also when old images become notes and entries change cost."""

from __future__ import annotations

from tests.agent.test_history_images import png, round_of, user
from tray_app.agent.context import BUDGET_SHARE, MESSAGE_OVERHEAD, estimate_tokens
from tray_app.agent.history import TurnHistory, omitted_result
from tray_app.providers.tool_images import MAX_REQUEST_IMAGES


def recounted(history: TurnHistory, num_ctx: int) -> int:
    """``tokens_left`` the slow way: every entry of the turn counted again."""
    current = history._current
    last_ask = max((i for i, e in enumerate(current) if e.message.role == "assistant"), default=0)
    used = 0
    for index, entry in enumerate(current):
        if index < last_ask and entry.message.role == "tool":
            used += MESSAGE_OVERHEAD + estimate_tokens(omitted_result(len(entry.message.content)))
        else:
            used += entry.tokens
    return int(num_ctx * BUDGET_SHARE) - used


def test_the_room_left_equals_a_recount_every_round_with_images_capped() -> None:
    history = TurnHistory.load([user("t", [png(99, 4000)])], "t", vision=True, tool_result_limit=9)
    checked = 0
    for n in range(MAX_REQUEST_IMAGES + 6):  # past the cap: older images become notes
        for record in round_of("t", n, [png(n, 3000 + n)]):
            history.add(record)
        for num_ctx in (2048, 24_576):
            assert history.tokens_left(num_ctx=num_ctx) == recounted(history, num_ctx), n
            sent = history.messages(None, num_ctx=num_ctx)
            assert sum(len(m.images) for m in sent) <= MAX_REQUEST_IMAGES
            checked += 1
    assert checked == 2 * (MAX_REQUEST_IMAGES + 6)
    # the cap really changed older entries' cost (the case the sums must follow)
    assert any(not e.message.images for e in history._current if e.message.role == "tool")
