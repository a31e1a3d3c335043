"""The tray's snapshot follows the core's events (no GUI needed)."""

from __future__ import annotations

from tray_app.desktop.tray import TrayState, reduce_state
from tray_app.events import ModelsUpdated, SettingsUpdated, StateChanged


def test_state_pending_models_and_settings_fold_in() -> None:
    state = reduce_state(
        TrayState(),
        [
            StateChanged(state="working"),
            StateChanged(state="waiting", pending=2),
            ModelsUpdated(models=[{"name": "qwen3:8b"}, {"name": "llama3.2"}]),
            SettingsUpdated(settings={"default_model": "llama3.2", "tools_enabled": False}),
        ],
    )
    assert state == TrayState(
        state="waiting", pending=2, models=("qwen3:8b", "llama3.2"), model="llama3.2",
        tools_enabled=False,
    )  # fmt: skip


def test_unrelated_events_change_nothing() -> None:
    state = TrayState(state="idle")
    assert reduce_state(state, []) is state
