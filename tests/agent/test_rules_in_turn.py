"""Lasting rules and the answers that teach, through Core, the loop and the real file tools:
a card's "Always allow" applies to the next call, "Never" refuses it without a card, a deny
rule holds in full auto, and a repeated identical ask gets the earlier answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.agent.bounds_helpers import tool_messages
from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn


def last_result(rig: Rig, request: int) -> dict[str, Any]:
    """The newest tool answer the model got in its ``request``-th request."""
    result: dict[str, Any] = json.loads(
        tool_messages(rig.fake.chat_requests[request])[-1]["content"]
    )
    return result


def test_always_allow_from_a_card_covers_the_next_call_in_the_folder(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(default_registry=True)
    first, second = rig.workspace / "一 🚀.txt", rig.workspace / "sub" / "二.txt"
    (rig.workspace / "sub").mkdir()
    rig.fake.script(
        tool_turn([("write_file", {"path": str(first), "content": "a"})]),
        tool_turn([("write_file", {"path": str(second), "content": "b"})]),
        text_turn("done"),
    )
    _, turn = rig.send("write two")
    asked = rig.log.wait_type("approval_needed")
    assert asked.rule_folder == str(rig.workspace)
    rig.core.decide(asked.call_id, True, rule=True)
    assert rig.finish(turn).stop_reason == "done"
    assert first.read_text() == "a" and second.read_text() == "b"
    assert len(rig.log.of_type("approval_needed")) == 1  # the second call was not asked
    (kept,) = rig.core.get_settings()["tool_rules"]
    assert kept["tool"] == "write_file" and kept["action"] == "allow"
    assert kept["folder"] == str(rig.workspace) and kept["created"] > 0
    updates = rig.log.of_type("tool_call_update")
    assert [u.decided_by for u in updates if u.status == "success"][-1] == "rule"


def test_never_from_a_card_refuses_the_next_call_without_asking(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(default_registry=True)
    a, b = rig.workspace / "a.txt", rig.workspace / "b.txt"
    rig.fake.script(
        tool_turn([("write_file", {"path": str(a), "content": "a"})]),
        tool_turn([("write_file", {"path": str(b), "content": "b"})]),
        text_turn("ok"),
    )
    _, turn = rig.send("write")
    asked = rig.log.wait_type("approval_needed")
    rig.core.decide(asked.call_id, False, rule=True)
    assert rig.finish(turn).stop_reason == "done"
    assert not a.exists() and not b.exists()
    assert len(rig.log.of_type("approval_needed")) == 1
    refused = last_result(rig, 2)
    assert refused["error"] == (
        f"write_file was not run: the user's permission rules deny write_file in "
        f"{rig.workspace}; do not retry it, ask the user or take another way"
    )


def test_a_deny_rule_holds_in_full_auto(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(default_registry=True, confirmation_mode="full_auto")
    rig.core.update_settings(
        {"tool_rules": [{"tool": "write_file", "folder": None, "action": "deny"}]}
    )
    target = rig.workspace / "x.txt"
    rig.fake.script(
        tool_turn([("write_file", {"path": str(target), "content": "x"})]), text_turn("ok")
    )
    _, turn = rig.send("write")
    assert rig.finish(turn).stop_reason == "done"
    assert not target.exists()
    assert rig.log.of_type("approval_needed") == []
    refused = last_result(rig, 1)
    assert "permission rules deny write_file;" in refused["error"]


def test_an_ask_rule_asks_in_full_auto_and_for_a_read(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(default_registry=True, confirmation_mode="full_auto")
    (rig.workspace / "r.txt").write_text("secret")
    rig.core.update_settings(
        {"tool_rules": [{"tool": "read_file", "folder": str(rig.workspace), "action": "ask"}]}
    )
    rig.fake.script(
        tool_turn([("read_file", {"path": str(rig.workspace / "r.txt")})]), text_turn("ok")
    )
    _, turn = rig.send("read")
    asked = rig.log.wait_type("approval_needed")
    assert asked.name == "read_file"
    rig.core.decide(asked.call_id, True)
    assert rig.finish(turn).stop_reason == "done"


def test_an_allow_rule_does_not_cover_a_spent_budget(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(default_registry=True, budget_written_mb=0.0)
    rig.core.update_settings(
        {"tool_rules": [{"tool": "write_file", "folder": str(rig.workspace), "action": "allow"}]}
    )
    target = rig.workspace / "big.txt"
    rig.fake.script(
        tool_turn([("write_file", {"path": str(target), "content": "x" * 100})]), text_turn("ok")
    )
    _, turn = rig.send("write")
    asked = rig.log.wait_type("approval_needed")
    assert asked.preview["budget"]["name"] == "bytes_written"
    rig.core.decide(asked.call_id, True)
    assert rig.finish(turn).stop_reason == "done"


def test_a_new_bad_rule_is_refused_and_nothing_changes(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(default_registry=True)
    bad = {"tool": "write_file", "folder": "relative", "action": "allow"}
    try:
        rig.core.update_settings({"tool_rules": [bad]})
    except Exception as exc:  # InvalidSettings, with the field and the code
        assert "tool_rules.0" in str(exc) and "folder_relative" in str(exc)
    else:
        raise AssertionError("a relative folder was kept")
    assert rig.core.get_settings()["tool_rules"] == []
    # A deny on a folder that does not exist yet never widens anything: it is kept.
    later = {"tool": "write_file", "folder": str(rig.workspace / "later"), "action": "deny"}
    rig.core.update_settings({"tool_rules": [later]})
    assert rig.core.get_settings()["tool_rules"] == [later]


def test_a_repeated_identical_ask_gets_the_earlier_answer(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(default_registry=True)
    target = rig.workspace / "same.txt"
    call = ("write_file", {"path": str(target), "content": "同じ"})
    rig.fake.script(tool_turn([call]), tool_turn([call]), text_turn("I will stop"))
    _, turn = rig.send("write")
    asked = rig.log.wait_type("approval_needed")
    rig.core.decide(asked.call_id, False)
    assert rig.finish(turn).stop_reason == "done"
    assert len(rig.log.of_type("approval_needed")) == 1
    assert not target.exists()
    denied = (
        "write_file was not run: the user denied this call; do not retry it, "
        "ask the user or take another way"
    )
    assert last_result(rig, 1)["error"] == denied
    assert last_result(rig, 2)["error"] == denied
    assert rig.core.get_settings()["tool_rules"] == []  # a plain "no" makes no rule


def test_read_only_mode_reads_and_refuses_changes_without_asking(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(default_registry=True, confirmation_mode="read_only")
    (rig.workspace / "r.txt").write_text("内容 ✨")
    target = rig.workspace / "w.txt"
    rig.fake.script(
        tool_turn([("read_file", {"path": "r.txt"})]),
        tool_turn([("write_file", {"path": str(target), "content": "x"})]),
        text_turn("ok"),
    )
    _, turn = rig.send("read, then write")
    assert rig.finish(turn).stop_reason == "done"
    assert rig.log.of_type("approval_needed") == []
    assert not target.exists()
    assert last_result(rig, 1)["success"] is True
    refused = last_result(rig, 2)
    assert refused["error"] == (
        "write_file was not run: the user has the app in Read only mode, which refuses every "
        "change; do not retry it, say what you would change instead"
    )
    record = rig.log.of_type("tool_call_update")[-1]
    assert record.result["code"] == "read_only_mode" and record.decided_by == "rule"
