"""The per-turn guards through a real Core and the fake Ollama server over HTTP: the repeat guard,
the per-turn damage budgets, and approvals bound to the file the user was shown."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn
from tray_app.agent.guards import REPEATED
from tray_app.tools.toolbox import CheckedCall, Toolbox


def approval(rig: Rig, n: int, timeout: float = 15.0) -> Any:
    """The n-th approval_needed event (1-based)."""
    rig.log.wait_for(lambda e: len(rig.log.of_type("approval_needed")) >= n, timeout)
    return rig.log.of_type("approval_needed")[n - 1]


def final(rig: Rig, call_id: str) -> Any:
    return rig.log.wait_for(
        lambda e: (
            getattr(e, "type", "") == "tool_call_update"
            and e.call_id == call_id
            and e.status in ("success", "error", "cancelled")
        )
    )


def tool_answers(rig: Rig, sid: str) -> list[dict[str, Any]]:
    messages = rig.core.get_session(sid)["messages"]
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


class Approver:
    """Answers every approval in a thread with ``decide(event)``, and keeps what it saw."""

    def __init__(self, rig: Rig, decide: Callable[[Any], bool] = lambda e: True) -> None:
        self.rig, self.decide, self.seen = rig, decide, []  # type: list[Any]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                event = approval(self.rig, len(self.seen) + 1, timeout=0.2)
            except AssertionError:
                continue
            self.seen.append(event)
            self.rig.core.decide(event.call_id, self.decide(event))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


# ---- repeat guard ---------------------------------------------------------------------------


def test_the_same_call_a_third_time_in_a_turn_is_answered_without_running(make_rig: Any) -> None:
    rig: Rig = make_rig(default_registry=True)
    target = rig.workspace / "笔记 📝.txt"
    target.write_text("第一行 🙂\n", encoding="utf-8")
    first = {"path": target.name, "encoding": "utf-8"}
    same_reordered = {"encoding": "utf-8", "path": target.name}
    rig.fake.script(
        tool_turn([("read_file", first)]),
        tool_turn([("read_file", first)]),
        tool_turn([("read_file", same_reordered)]),  # same call: keys in another order
        tool_turn([("read_file", {"path": target.name, "start_line": 1})]),  # a different call
        text_turn("读完了"),
    )
    sid, turn = rig.send("read it, again and again")
    assert rig.finish(turn).stop_reason == "done"
    answers = tool_answers(rig, sid)
    assert [a["success"] for a in answers] == [True, True, False, True]
    assert answers[2]["error"] == REPEATED and "code" not in answers[2]  # the model: English
    assert "第一行 🙂" in answers[0]["content"] and "第一行 🙂" in answers[3]["content"]
    stored = rig.core.get_session(sid)["tool_calls"]
    assert [c["status"] for c in stored] == ["success", "success", "cancelled", "success"]
    assert stored[2]["decision"] == "skipped" and stored[2]["decided_by"] == "rule"
    # The card and the terminal say it in the user's language from a code and its parameters.
    assert stored[2]["result"]["code"] == "repeated"
    assert stored[2]["result"]["params"] == {"n": 2}


def test_a_repeated_write_is_not_run_a_third_time(make_rig: Any) -> None:
    rig: Rig = make_rig(default_registry=True, confirmation_mode="full_auto")
    target = rig.workspace / "log.txt"
    call = ("write_file", {"path": "log.txt", "content": "x"})
    rig.fake.script(
        tool_turn([call]), tool_turn([call]), tool_turn([call]), tool_turn([call]), text_turn("ok")
    )
    sid, turn = rig.send("write")
    rig.finish(turn)
    answers = tool_answers(rig, sid)
    assert [a.get("error") for a in answers] == [None, None, REPEATED, REPEATED]
    assert target.read_text() == "x"
    assert rig.core.get_session(sid)["tool_calls"][3]["status"] == "cancelled"


# ---- damage budgets -------------------------------------------------------------------------


def test_a_full_auto_turn_deleting_25_files_asks_again_at_the_21st(make_rig: Any) -> None:
    rig: Rig = make_rig(
        default_registry=True, confirmation_mode="full_auto", max_tool_calls_per_round=30
    )
    names = [f"文件-{n:02d}-🗑.txt" for n in range(25)]
    for name in names:
        (rig.workspace / name).write_text(name)
    rig.fake.script(
        tool_turn([("delete_file", {"path": name}) for name in names]), text_turn("all gone")
    )
    approver = Approver(rig)
    try:
        sid, turn = rig.send("delete them all")
        assert rig.finish(turn, timeout=60).stop_reason == "done"
    finally:
        approver.stop()
    assert len(approver.seen) == 25  # deletes always ask; the budget says why this one is more
    budgets = [e.preview.get("budget") for e in approver.seen]
    assert budgets[:20] == [None] * 20
    assert budgets[20] is not None
    assert {k: budgets[20][k] for k in ("name", "limit", "used", "call")} == {
        "name": "files_removed",
        "limit": 20,
        "used": 20,
        "call": 1,
    }
    assert "20 of 20 files removed" in budgets[20]["text"]
    assert budgets[24]["used"] == 24  # approved past the budget: still counted, still asked
    assert not any((rig.workspace / name).exists() for name in names)
    assert all(a["success"] for a in tool_answers(rig, sid))


def test_past_the_write_budget_full_auto_and_a_grant_ask_again(make_rig: Any) -> None:
    # 0.001 MB = 1049 bytes: the first 800-byte write runs unasked, the second would pass it.
    rig: Rig = make_rig(
        default_registry=True, confirmation_mode="full_auto", budget_written_mb=0.001
    )
    body = "写🙂" * 100  # 700 bytes of UTF-8
    rig.fake.script(
        tool_turn([("write_file", {"path": "a.txt", "content": body + "x" * 100})]),
        tool_turn([("write_file", {"path": "b.txt", "content": body + "y" * 100})]),
        text_turn("done"),
    )
    sid, turn = rig.send("write two files")
    event = approval(rig, 1)
    assert event.preview["budget"]["name"] == "bytes_written"
    assert event.preview["budget"]["used"] == 800 and event.preview["budget"]["call"] == 800
    assert not (rig.workspace / "b.txt").exists()  # nothing written while it waits
    rig.core.decide(event.call_id, False)
    rig.finish(turn)
    assert (rig.workspace / "a.txt").read_text() == body + "x" * 100
    assert not (rig.workspace / "b.txt").exists()
    assert "denied" in tool_answers(rig, sid)[1]["error"]


def test_a_session_grant_does_not_cover_a_call_past_the_budget(make_rig: Any) -> None:
    rig: Rig = make_rig(default_registry=True, budget_written_mb=0.001)
    rig.fake.script(
        tool_turn([("write_file", {"path": "one.txt", "content": "1" * 600})]),
        tool_turn([("write_file", {"path": "two.txt", "content": "2" * 100})]),
        tool_turn([("write_file", {"path": "three.txt", "content": "3" * 600})]),
        text_turn("done"),
    )
    _sid, turn = rig.send("write three")
    first = approval(rig, 1)
    assert "budget" not in first.preview
    rig.core.decide(first.call_id, True, remember=True)  # don't ask again this chat
    second = approval(rig, 2)  # two.txt went unasked under the grant; three.txt is over
    assert second.preview["budget"]["name"] == "bytes_written"
    assert second.preview["budget"]["used"] == 700
    rig.core.decide(second.call_id, True)
    rig.finish(turn)
    assert len(rig.log.of_type("approval_needed")) == 2
    assert (rig.workspace / "three.txt").read_text() == "3" * 600


# ---- approvals bound to what was shown -------------------------------------------------------


def test_an_edit_of_a_file_changed_after_approval_asks_again_with_the_new_diff(
    make_rig: Any,
) -> None:
    rig: Rig = make_rig(default_registry=True)
    target = rig.workspace / "配置 ⚙.txt"
    target.write_text("名字 = 旧\n颜色 = 红\n", encoding="utf-8")
    edit = {"path": target.name, "edits": [{"old_text": "名字 = 旧", "new_text": "名字 = 新 ✨"}]}
    rig.fake.script(tool_turn([("edit_file", edit)]), text_turn("改好了"))
    _sid, turn = rig.send("rename it")
    shown = approval(rig, 1)
    assert shown.preview["binding"]["sha256"]
    assert "+名字 = 新 ✨" in shown.preview["text"] and "颜色 = 红" in shown.preview["text"]
    # Someone changes another line after the user looked at the diff, before the call runs.
    target.write_text("名字 = 旧\n颜色 = 蓝 🔵\n", encoding="utf-8")
    rig.core.decide(shown.call_id, True)
    again = approval(rig, 2)
    assert again.call_id == shown.call_id
    assert again.preview["changed_since_shown"] is True and again.preview["approval_round"] == 2
    assert "颜色 = 蓝 🔵" in again.preview["text"] and "颜色 = 红" not in again.preview["text"]
    assert again.preview["binding"] != shown.preview["binding"]
    # Not written while the new diff waits.
    assert target.read_text(encoding="utf-8") == "名字 = 旧\n颜色 = 蓝 🔵\n"
    cards = [e.call for e in rig.log.of_type("tool_call") if e.call.call_id == shown.call_id]
    assert cards[-1].preview.get("changed_since_shown") is True  # the card shows it as well
    rig.core.decide(again.call_id, True)
    rig.finish(turn)
    assert target.read_text(encoding="utf-8") == "名字 = 新 ✨\n颜色 = 蓝 🔵\n"
    assert final(rig, shown.call_id).status == "success"


def test_a_write_over_a_changed_file_is_not_written_when_the_new_diff_is_denied(
    make_rig: Any,
) -> None:
    rig: Rig = make_rig(default_registry=True)
    target = rig.workspace / "notes.md"
    target.write_text("draft\n")
    rig.fake.script(
        tool_turn([("write_file", {"path": "notes.md", "content": "final ✅\n"})]), text_turn("ok")
    )
    sid, turn = rig.send("finish it")
    shown = approval(rig, 1)
    target.write_text("draft, edited by hand 手改\n")  # the same size would still be seen
    rig.core.decide(shown.call_id, True)
    again = approval(rig, 2)
    assert "-draft, edited by hand 手改" in again.preview["text"]
    rig.core.decide(again.call_id, False)
    rig.finish(turn)
    assert target.read_text() == "draft, edited by hand 手改\n"
    assert "denied" in tool_answers(rig, sid)[0]["error"]


def test_a_same_size_change_in_place_is_seen_by_its_hash(make_rig: Any) -> None:
    rig: Rig = make_rig(default_registry=True)
    target = rig.workspace / "keep.txt"
    target.write_bytes(b"AAAA\n")
    rig.fake.script(tool_turn([("delete_file", {"path": "keep.txt"})]), text_turn("ok"))
    _sid, turn = rig.send("delete it")
    shown = approval(rig, 1)
    info = target.stat()
    with open(target, "r+b") as handle:  # same inode, same size, the old mtime put back
        handle.write(b"BBBB")
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    rig.core.decide(shown.call_id, True)
    again = approval(rig, 2)
    assert again.preview["changed_since_shown"] is True
    rig.core.decide(again.call_id, False)
    rig.finish(turn)
    assert target.read_bytes() == b"BBBB\n"


def test_a_file_that_disappeared_after_approval_is_not_acted_on(make_rig: Any) -> None:
    rig: Rig = make_rig(default_registry=True)
    source = rig.workspace / "a.txt"
    source.write_text("a")
    rig.fake.script(
        tool_turn([("move_file", {"source": "a.txt", "destination": "b.txt"})]), text_turn("ok")
    )
    sid, turn = rig.send("rename")
    shown = approval(rig, 1)
    source.unlink()
    rig.core.decide(shown.call_id, True)
    rig.finish(turn)
    (answer,) = tool_answers(rig, sid)
    assert answer["success"] is False and "changed after the user approved it" in answer["error"]
    assert not (rig.workspace / "b.txt").exists()
    assert len(rig.log.of_type("approval_needed")) == 1


# ---- what a call costs, from its preview ------------------------------------------------------


def test_the_cost_of_a_call_comes_from_its_preview() -> None:
    from tray_app.agent.guards import Budgets, Cost, TurnGuards, call_key, cost_of
    from tray_app.base.messages import parse_preview

    tree = {"kind": "tree", "count": 26, "size": 5}
    assert cost_of("destructive", parse_preview(tree)) == Cost(files_removed=26)
    edit = {"kind": "diff", "size_after": 2_000_000, "changes": True}
    assert cost_of("write", parse_preview(edit)) == Cost(bytes_written=2_000_000)
    assert cost_of("write", parse_preview({**edit, "changes": False})) == Cost()  # a dry run
    move = {"kind": "move", "deletes": True, "replaced_size": 7}
    assert cost_of("write", parse_preview(move)) == Cost(files_removed=1, bytes_written=7)
    assert cost_of("write", parse_preview({"kind": "move", "deletes": False})) == Cost()
    assert cost_of("command", parse_preview({"cwd": "/w"})) == Cost(commands=1)
    guards = TurnGuards(Budgets(files_removed=20, bytes_written=10, commands=1))
    assert guards.over_budget(Cost(files_removed=26))["name"] == "files_removed"  # type: ignore[index]
    guards.charge(Cost(commands=1))
    assert guards.over_budget(Cost(commands=1)) == {
        "name": "commands",
        "limit": 1,
        "used": 1,
        "call": 1,
    }
    assert call_key("x", {"a": 1, "b": "é"}) == call_key("x", {"b": "é", "a": 1})
    assert call_key("x", {"a": 1}) != call_key("y", {"a": 1})


def test_a_change_between_the_last_check_and_the_tool_read_is_asked_again(
    make_rig: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file changes right after the loop's last check: the tool refuses on its own read,
    and the loop asks again with the new diff instead of answering the model."""
    real_preview = Toolbox.preview_checked
    seen: list[int] = []

    def racing_preview(self: Toolbox, call: CheckedCall, cancel: Any = None) -> dict[str, Any]:
        result = real_preview(self, call, cancel)
        seen.append(1)
        if len(seen) == 2:  # the check just before the call runs: someone writes right after
            target.write_text("α = 1\nβ = 改 🌀\n", encoding="utf-8")
        return result

    monkeypatch.setattr(Toolbox, "preview_checked", racing_preview)
    rig: Rig = make_rig(default_registry=True)
    target = rig.workspace / "race 竞争.txt"
    target.write_text("α = 1\nβ = 2\n", encoding="utf-8")
    edit = {"path": target.name, "edits": [{"old_text": "α = 1", "new_text": "α = 一"}]}
    rig.fake.script(tool_turn([("edit_file", edit)]), text_turn("ok"))
    sid, turn = rig.send("edit")
    shown = approval(rig, 1)
    rig.core.decide(shown.call_id, True)
    again = approval(rig, 2)
    assert again.preview["changed_since_shown"] is True
    assert "β = 改 🌀" in again.preview["text"]
    assert target.read_text(encoding="utf-8") == "α = 1\nβ = 改 🌀\n"  # the tool wrote nothing
    rig.core.decide(again.call_id, True)
    rig.finish(turn)
    assert target.read_text(encoding="utf-8") == "α = 一\nβ = 改 🌀\n"
    (answer,) = tool_answers(rig, sid)
    assert answer["success"] is True


@pytest.mark.parametrize("how", ["grant", "full_auto"])
def test_an_unasked_write_whose_target_changed_after_preview_is_not_written_and_asks(
    make_rig: Any, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Under a session grant (or full auto) the write runs unasked, but it is still bound to
    what its preview (the card's diff) was made from: a change in between asks the user."""
    real_preview = Toolbox.preview_checked
    previews: list[str] = []

    def racing_preview(self: Toolbox, call: CheckedCall, cancel: Any = None) -> Any:
        result = real_preview(self, call, cancel)
        previews.append(str(getattr(call.args, "path", "")))
        if previews.count(target.name) == 1 and previews[-1] == target.name:
            # The draft's first preview (the card's diff): someone edits the file right after.
            target.write_text("手改 ✍ \u202eevil\u202c\n", encoding="utf-8")
        return result

    monkeypatch.setattr(Toolbox, "preview_checked", racing_preview)
    mode = "full_auto" if how == "full_auto" else "all_writes"
    rig: Rig = make_rig(default_registry=True, confirmation_mode=mode)
    target = rig.workspace / "草稿 📝.md"
    target.write_text("旧\n", encoding="utf-8")
    rig.fake.script(
        tool_turn([("write_file", {"path": "first.txt", "content": "1"})]),
        tool_turn([("write_file", {"path": target.name, "content": "新 ✅\n"})]),
        text_turn("ok"),
    )
    sid, turn = rig.send("write both")
    if how == "grant":
        first = approval(rig, 1)
        rig.core.decide(first.call_id, True, remember=True)  # don't ask again this chat
    n = 2 if how == "grant" else 1
    asked = approval(rig, n)
    assert asked.name == "write_file" and asked.arguments["path"] == target.name
    assert asked.preview["changed_since_shown"] is True
    assert "-手改 ✍ \u202eevil\u202c" in asked.preview["text"] and "+新 ✅" in asked.preview["text"]
    # Not written while it asks: the file keeps the hand edit.
    assert target.read_text(encoding="utf-8") == "手改 ✍ \u202eevil\u202c\n"
    cards = [e.call for e in rig.log.of_type("tool_call") if e.call.call_id == asked.call_id]
    assert cards[-1].preview.get("changed_since_shown") is True
    rig.core.decide(asked.call_id, False)
    rig.finish(turn)
    assert target.read_text(encoding="utf-8") == "手改 ✍ \u202eevil\u202c\n"
    assert (rig.workspace / "first.txt").read_text() == "1"
    answers = tool_answers(rig, sid)
    assert answers[0]["success"] is True
    assert answers[1]["success"] is False and "denied" in answers[1]["error"]
    assert len(rig.log.of_type("approval_needed")) == n
