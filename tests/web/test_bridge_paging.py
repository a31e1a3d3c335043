"""The page's paged reads go through the bridge checked: ids, limits, nothing else."""

from __future__ import annotations

from tests.web.test_bridge import FakeCore
from tray_app.desktop.popup.bridge import Bridge


def test_paged_reads_pass_through_and_bad_pages_are_refused() -> None:
    core = FakeCore()
    bridge = Bridge(core)  # type: ignore[arg-type]
    assert bridge.get_session({"session_id": "s_1", "limit": 60})["ok"] is True
    assert core.calls[-1] == ("get_session", ("s_1",), {"limit": 60})
    assert bridge.get_messages({"session_id": "s_1", "before": "m_9", "limit": 30})["ok"]
    assert core.calls[-1] == ("get_messages", ("s_1",), {"before": "m_9", "limit": 30})
    bridge.get_messages({"session_id": "s_1"})
    assert core.calls[-1] == ("get_messages", ("s_1",), {"before": None, "limit": 50})
    calls = len(core.calls)
    for bad in (
        {"session_id": "s_1", "limit": 0},
        {"session_id": "s_1", "limit": 10**9},
        {"session_id": "s_1", "before": "../x"},
        {"session_id": "s_1", "extra": 1},
    ):
        assert bridge.get_messages(bad)["ok"] is False
    assert len(core.calls) == calls
