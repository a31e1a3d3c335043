"""The tray's snapshot follows the core's events (no GUI needed)."""

from __future__ import annotations

from tray_app.base.events import ModelsUpdated, SettingsUpdated, StateChanged
from tray_app.desktop.tray.tray import TrayState, reduce_state


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


def test_the_mode_follows_the_settings_and_maps_both_ways() -> None:
    from tray_app.desktop.tray.modes import MODES, mode_of, mode_patch

    state = reduce_state(
        TrayState(), [SettingsUpdated(settings={"confirmation_mode": "read_only"})]
    )
    assert state.confirmation_mode == "read_only"
    for mode in MODES:
        assert mode_of(mode_patch(mode, {})) == mode
    # Ask keeps "overwrites and deletes only" when Settings chose it; Chat only leaves it be.
    assert mode_patch("ask", {"confirmation_mode": "delete_only"})["confirmation_mode"] == (
        "delete_only"
    )
    assert mode_of({"tools_enabled": True, "confirmation_mode": "delete_only"}) == "ask"
    assert mode_patch("chat", {"confirmation_mode": "full_auto"}) == {"tools_enabled": False}
