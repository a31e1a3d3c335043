"""Through the loop, Core and the real SQLite store: a call's arguments and preview are
serialised into the store once, however many status changes follow (pending, running,
success), and the record the store ends with equals the one the events described."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn
from tests.fakes.store_spy import count_serialised

CONTENT = "第一行 ✨\nمرحبا 🇨🇳 \u202eevil\u202c\n" + "长" * 20_000


def test_a_written_file_serialises_arguments_and_preview_once(
    make_rig: Callable[..., Rig], monkeypatch: pytest.MonkeyPatch
) -> None:
    written = count_serialised(monkeypatch)
    rig = make_rig(default_registry=True, sqlite=True)
    target = rig.workspace / "笔记 👩🏽‍💻.txt"
    arguments = {"path": str(target), "content": CONTENT}
    rig.fake.script(tool_turn([("write_file", arguments)]), text_turn("好了"))
    sid, turn = rig.send("写")
    asked = rig.log.wait_type("approval_needed")
    assert asked.arguments == arguments
    rig.core.decide(asked.call_id, True)
    assert rig.finish(turn).stop_reason == "done"
    assert target.read_text(encoding="utf-8") == CONTENT
    assert sorted(name for name, _ in written) == ["arguments", "preview", "result"]

    (stored,) = rig.core.get_session(sid)["tool_calls"]
    (announced,) = [e.call for e in rig.log.of_type("tool_call")]
    updates = rig.log.of_type("tool_call_update")
    assert [u.status for u in updates] == ["running", "success"]
    expected = announced.model_dump()
    for update in updates:  # each update names fields of the record, under its names
        envelope = {"type", "at", "session_id", "call_id", "progress"}  # progress: live only
        expected.update(update.model_dump(exclude=envelope))
    assert stored == expected
    assert stored["arguments"] == arguments and stored["decided_by"] == "popup"
