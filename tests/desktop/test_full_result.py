"""A result shortened for the model is kept whole for the user: the card's "Show all" fetches it
through the real Bridge (real Core, real SQLite, fake model server over loopback HTTP)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn
from tray_app.desktop.popup.bridge import Bridge
from tray_app.tools.fit import json_chars
from tray_app.tools.full_results import FullResults

NAMES = ["笔记 {i:03d} 🙂", "\u202eevil {i:03d}", 'emoji 👨‍👩‍👧 {i:03d} "q" \\']


def test_show_all_returns_the_whole_result_the_model_got_shortened(
    make_rig: Any, tmp_path: Path
) -> None:
    rig: Rig = make_rig(default_registry=True, sqlite=True, tool_result_limit=2_000)
    root = rig.workspace / "树 🌳"
    names = set()
    for d in range(3):
        for i in range(60):
            name = NAMES[i % 3].format(i=i)
            (root / f"目录 {d}" / name).mkdir(parents=True)
            names.add(name)
    rig.fake.script(tool_turn([("directory_tree", {"path": root.name})]), text_turn("ok"))
    sid, turn = rig.send("show the tree")
    assert rig.finish(turn).stop_reason == "done"
    sent = [m for m in rig.fake.requests[1]["messages"] if m["role"] == "tool"]
    model_got = json.loads(sent[0]["content"])
    assert len(sent[0]["content"]) <= 2_000 and "cut_to_fit" in model_got
    assert "card_full" not in model_got  # the model is not offered what it cannot fetch
    (call,) = rig.core.get_session(sid)["tool_calls"]
    assert call["result"]["card_full"] is True  # the card offers "Show all"
    bridge = Bridge(rig.core, save_file=lambda name: str(tmp_path / name))
    envelope = bridge.full_result({"call_id": call["call_id"]})
    assert envelope["ok"] is True, envelope
    whole = json.dumps(envelope["data"], ensure_ascii=False)
    assert "cut_to_fit" not in envelope["data"] and all(
        json.dumps(name, ensure_ascii=False)[1:-1] in whole for name in names
    )
    missing = bridge.full_result({"call_id": "c_gone"})
    assert missing["ok"] is False and missing["code"] == "not_found"


def test_the_kept_results_are_bounded() -> None:
    big = {"success": True, "content": "长🙂" * 1_000}
    size = json_chars(big)
    kept = FullResults(max_chars=size * 3, max_one=size * 2)
    for n in range(10):
        assert kept.keep(f"c{n}", big)
    assert [kept.get(f"c{n}") is not None for n in range(10)] == [False] * 7 + [True] * 3
    assert not kept.keep("huge", {"content": "x" * size * 3})  # one past the bound: not kept
    assert kept.get("huge") is None and kept.get("c9") == big


def test_a_read_that_sized_itself_offers_the_rest_too(make_rig: Any, tmp_path: Path) -> None:
    """read_file and list_directory fit the room themselves (whole lines, whole entries); the
    card still gets the rest: Core reads once more without the room and keeps that."""
    rig: Rig = make_rig(default_registry=True, sqlite=True, tool_result_limit=2_000)
    lines = [f"第 {i} 行 🙂 \u202e{'y' * 40}\n" for i in range(1, 201)]
    (rig.workspace / "长 long.txt").write_text("".join(lines), encoding="utf-8")
    rig.fake.script(tool_turn([("read_file", {"path": "长 long.txt"})]), text_turn("ok"))
    sid, turn = rig.send("read")
    assert rig.finish(turn).stop_reason == "done"
    sent = [m for m in rig.fake.requests[1]["messages"] if m["role"] == "tool"]
    model_got = json.loads(sent[0]["content"])
    assert model_got["next_start_line"] < 200 and "card_full" not in model_got
    (call,) = rig.core.get_session(sid)["tool_calls"]
    assert call["result"]["card_full"] is True
    bridge = Bridge(rig.core, save_file=lambda name: str(tmp_path / name))
    whole = bridge.full_result({"call_id": call["call_id"]})["data"]
    assert whole["content"] == "".join(lines)  # every line, for the user
    # A small file fits: nothing is read twice, nothing is offered.
    (rig.workspace / "小.txt").write_text("一行\n", encoding="utf-8")
    rig.fake.script(tool_turn([("read_file", {"path": "小.txt"})]), text_turn("ok"))
    _, turn = rig.send("read the small one", session_id=sid)
    rig.finish(turn)
    assert "card_full" not in rig.core.get_session(sid)["tool_calls"][-1]["result"]
