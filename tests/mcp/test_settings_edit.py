"""Editing ``mcp_servers`` through ``update_settings``: secrets in the file never leave Core and
``***`` keeps them; each changed server is checked with field errors; a tool switched off is
left out of the turn without restarting its server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.turns import text_turn
from tests.mcp.conftest import fake_entry
from tests.support.waiting import eventually
from tray_app.base.errors import InvalidSettings
from tray_app.core.mcp_settings import mask_servers, prepare_servers


def test_masking_keeps_keyring_references_and_hides_the_rest() -> None:
    raw = {
        "a": {"command": "x", "env": {"T": "plain", "K": "keyring:tok", "E": ""}},
        "b": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer 密钥"}},
        "broken": "not an object",
    }
    shown = mask_servers(raw)
    assert shown["a"]["env"] == {"T": "***", "K": "keyring:tok", "E": ""}
    assert shown["b"]["headers"] == {"Authorization": "***"}
    assert shown["broken"] == "not an object"
    assert raw["a"]["env"]["T"] == "plain"  # the original is untouched


def test_a_mask_sent_back_keeps_the_saved_value_and_an_unknown_one_is_refused() -> None:
    old = {"a": {"command": "x", "env": {"T": "plain"}}}
    servers, errors = prepare_servers({"a": {"command": "y", "env": {"T": "***"}}}, old)
    assert errors == {} and servers["a"]["env"]["T"] == "plain"
    _, errors = prepare_servers({"renamed": {"command": "x", "env": {"T": "***"}}}, old)
    assert "mcp_servers.renamed.env" in errors


def test_only_changed_servers_are_checked_and_errors_name_the_field() -> None:
    old = {"legacy": {"command": "x", "url": "http://both"}}  # broken in the file already
    servers, errors = prepare_servers({**old, "new": {"command": "y"}}, old)
    assert errors == {} and set(servers) == {"legacy", "new"}
    _, errors = prepare_servers({"n": {"url": "ftp://x"}}, {})
    assert list(errors) == ["mcp_servers.n.url"]
    _, errors = prepare_servers({"bad/name": {"command": "x"}}, {})
    assert list(errors) == ["mcp_servers.bad/name.name"]
    _, errors = prepare_servers({"t": {"command": "x", "timeout_s": -1}}, {})
    assert list(errors) == ["mcp_servers.t.timeout_s"]


def test_update_settings_masks_every_view_and_refuses_with_field_errors(
    make_rig: Any, marks: Path
) -> None:
    entry = fake_entry(marks, enabled=False)
    entry["env"]["TOKEN"] = "s3cret"
    rig = make_rig(mcp_servers={"fake": entry})
    view = rig.core.get_settings()
    assert view["mcp_servers"]["fake"]["env"]["TOKEN"] == "***"
    saved = rig.core.update_settings({"mcp_servers": {"fake": {**view["mcp_servers"]["fake"]}}})
    assert saved["settings"]["mcp_servers"]["fake"]["env"]["TOKEN"] == "***"
    assert rig.core.settings.mcp_servers["fake"]["env"]["TOKEN"] == "s3cret"
    with pytest.raises(InvalidSettings) as refused:
        rig.core.update_settings({"mcp_servers": {"x": {"url": "ftp://nope"}}})
    assert list(refused.value.errors) == ["mcp_servers.x.url"]
    assert "http://" in refused.value.errors["mcp_servers.x.url"]
    assert "s3cret" not in str(refused.value.settings)


def test_a_disabled_tool_is_left_out_of_the_turn_without_a_restart(
    make_rig: Any, marks: Path
) -> None:
    rig = make_rig(default_registry=True, mcp_servers={"fake": fake_entry(marks)})
    eventually(lambda: any(s["status"] == "ready" for s in rig.core.mcp_status()), 30, "ready")
    started = sorted(marks.glob("started-*"))
    entry = {**rig.core.settings.mcp_servers["fake"], "disabled_tools": ["wipe"]}
    rig.core.update_settings({"mcp_servers": {"fake": entry}})
    eventually(
        lambda: any(
            t["name"] == "wipe" and not t["enabled"] for t in rig.core.mcp_status()[0]["tools"]
        ),
        15,
        "wipe switched off",
    )
    assert rig.core.mcp_status()[0]["status"] == "ready"
    assert sorted(marks.glob("started-*")) == started  # the same process
    rig.fake.script(text_turn("hi"))
    _, turn = rig.send("hello")
    rig.finish(turn)
    names = {t["function"]["name"] for t in rig.fake.chat_requests[0]["tools"]}
    assert "fake__echo" in names and "fake__wipe" not in names
