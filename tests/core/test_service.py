"""Core commands beyond the turn itself: models, pull, settings, sessions, undo, images."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn
from tray_app.base.errors import Busy, InvalidSettings, UndoFailed


def test_list_models_carries_capabilities_and_announces_them(make_rig: Any) -> None:
    rig: Rig = make_rig()
    result = rig.core.list_models()
    assert result["error"] is None
    caps = {m["name"]: m["capabilities"] for m in result["models"]}
    assert set(caps["qwen3:8b"]) >= {"tools", "thinking"}
    assert "vision" in caps["gemma3:4b"]
    assert rig.log.wait_type("models_updated").models == result["models"]


def test_list_models_and_status_say_why_when_the_server_is_down(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.stop()
    result = rig.core.list_models()
    assert result["models"] == [] and "ollama" in result["error"].lower()
    status = rig.core.server_status()
    assert status["reachable"] is False and status["error"]
    assert status["code"] == "provider_unavailable"  # the page words it in the user's language


def test_pull_streams_progress_then_refreshes_the_models(make_rig: Any) -> None:
    rig: Rig = make_rig()
    assert rig.core.pull_model("llama3.2")["started"] is True
    last = rig.log.wait_for(lambda e: getattr(e, "type", "") == "pull_progress" and e.done)
    assert last.status == "success" and last.error is None
    progress = [e for e in rig.log.of_type("pull_progress") if e.total]
    assert progress and all(0 <= (e.completed or 0) <= e.total for e in progress)
    rig.log.wait_type("models_updated")


def test_settings_update_validates_everything_or_changes_nothing(make_rig: Any) -> None:
    rig: Rig = make_rig()
    with pytest.raises(InvalidSettings) as bad:
        rig.core.update_settings({"temperature": 5, "num_ctx": 4096})
    assert "temperature" in bad.value.errors
    assert rig.core.get_settings()["num_ctx"] == 24576
    with pytest.raises(InvalidSettings):
        rig.core.update_settings({"no_such_setting": 1})
    good = rig.core.update_settings({"num_ctx": 4096, "language": "zh-CN"})
    assert good["settings"]["num_ctx"] == 4096
    assert rig.log.wait_type("settings_updated").settings["num_ctx"] == 4096
    rig.fake.script(text_turn("好"))
    _, turn = rig.send("hi")
    rig.finish(turn)
    assert rig.fake.chat_requests[-1]["options"]["num_ctx"] == 4096


def test_settings_are_saved_when_the_core_persists_them(app_paths: Any, tmp_path: Path) -> None:
    from tray_app.core.service import Core
    from tray_app.store.settings import Settings, load_settings

    core = Core(settings=Settings(allowed_dirs=[str(tmp_path)]), paths=app_paths).start()
    try:
        assert core.update_settings({"theme": "dark"})["settings"]["theme"] == "dark"
    finally:
        core.stop()
    assert load_settings(app_paths.settings_file).theme == "dark"


def test_sessions_rename_search_export_delete(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(text_turn("Bananas are berries."))
    sid, turn = rig.send("Tell me about bananas")
    rig.finish(turn)
    assert rig.core.list_sessions()[0]["title"] == "Tell me about bananas"
    rig.core.update_session(sid, title="Fruit facts")
    assert [s["id"] for s in rig.core.search_sessions("berries")] == [sid]
    assert rig.core.search_sessions("zebras") == []
    markdown = rig.core.export_session(sid)["data"]
    assert "Fruit facts" in markdown and "Bananas are berries." in markdown
    exported = rig.core.export_session(sid, fmt="json")["data"]
    assert json.dumps(exported)  # plain JSON
    rig.core.delete_session(sid)
    assert rig.core.list_sessions() == []
    assert rig.log.wait_type("session_updated", deleted=True).session["id"] == sid


def test_a_workspace_outside_the_allowed_folders_is_refused(make_rig: Any, tmp_path: Path) -> None:
    rig: Rig = make_rig()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    try:
        rig.core.new_session(workspace=str(outside))
    except Exception as exc:  # the bridge turns this into a message for the user
        assert "elsewhere" in str(exc)
    else:
        raise AssertionError("a workspace outside the allowed folders was accepted")
    inside = rig.workspace / "proj"
    inside.mkdir()
    assert rig.core.new_session(workspace=str(inside))["workspace"] == str(inside)


def test_undo_last_restores_what_the_agent_overwrote(make_rig: Any) -> None:
    rig: Rig = make_rig(default_registry=True, confirmation_mode="full_auto")
    target = rig.workspace / "notes.txt"
    target.write_text("original\n")
    rig.fake.script(
        tool_turn([("write_file", {"path": "notes.txt", "content": "changed\n"})]),
        text_turn("done"),
    )
    _, turn = rig.send("change notes")
    rig.finish(turn)
    assert target.read_text() == "changed\n"
    update = rig.log.wait_for(
        lambda e: getattr(e, "type", "") == "tool_call_update" and e.status == "success"
    )
    assert update.undoable is True
    result = rig.core.undo(update.call_id)
    assert result["success"] is True, result
    assert target.read_text() == "original\n"
    assert rig.log.wait_type("undo_applied").call_id == update.call_id
    with pytest.raises(UndoFailed, match="nothing to undo"):
        rig.core.undo_last()


def test_images_reach_vision_models_only_and_the_user_is_told(make_rig: Any) -> None:
    image = base64.b64encode(b"\x89PNG fake").decode()
    rig: Rig = make_rig(default_model="gemma3:4b")
    rig.fake.script(text_turn("a cat"), text_turn("no eyes"))
    sid = rig.session()
    turn = rig.core.send_message(sid, "what is this?", images=[image])["turn_id"]
    rig.finish(turn)
    assert rig.fake.chat_requests[0]["messages"][-1]["images"] == [image]
    sid2 = rig.session(model="qwen3:8b")
    turn2 = rig.core.send_message(sid2, "and this?", images=[image])["turn_id"]
    rig.finish(turn2)
    assert "images" not in rig.fake.chat_requests[1]["messages"][-1]
    assert rig.log.wait_type("notice", code="images_unsupported")


def test_a_second_message_while_answering_is_refused(make_rig: Any) -> None:
    from tests.fakes.turns import slow_turn

    rig: Rig = make_rig()
    rig.fake.script(slow_turn("a b c d e f g", delay=0.2))
    sid, turn = rig.send("slow")
    rig.log.wait_type("content_delta")
    with pytest.raises(Busy, match="still answering"):
        rig.core.send_message(sid, "again")
    rig.core.abort(sid)
    rig.finish(turn)


def test_without_any_model_chosen_the_first_one_that_can_use_tools_is_used(
    make_rig: Any,
) -> None:
    from tests.fakes.ollama_server import FakeOllama

    rig: Rig = make_rig(default_model="")
    with FakeOllama(
        models={"gemma3:4b": ["completion", "vision"], "qwen3:8b": ["completion", "tools"]}
    ) as fake:
        rig.core.update_settings({"endpoint": fake.url})
        fake.script(text_turn("hello"))
        sid, turn = rig.send("hi")
        rig.finish(turn)
        assert fake.chat_requests[0]["model"] == "qwen3:8b"
        assert rig.core.get_session(sid)["session"]["model"] == "qwen3:8b"


def test_status_and_snapshot_name_the_folder_the_tools_really_use(
    make_rig: Any, tmp_path: Path
) -> None:
    # The first allowed folder is blocked (as root's home is): the sandbox skips it, and the
    # folder Core reports is the one a relative path really lands in, not allowed_dirs[0].
    blocked = tmp_path / "home"
    blocked.mkdir()
    rig: Rig = make_rig(default_registry=True, blocked_dirs=[str(blocked)])
    rig.core.update_settings({"allowed_dirs": [str(blocked), str(rig.workspace)]})
    assert rig.core.status()["workspace"] == str(rig.workspace.resolve())
    rig.fake.script(tool_turn([("create_directory", {"path": "made_here"})]), text_turn("ok"))
    rig.core.update_settings({"confirmation_mode": "full_auto"})
    sid, turn = rig.send("make a folder")
    rig.finish(turn)
    assert (rig.workspace / "made_here").is_dir() and not (blocked / "made_here").exists()
    snapshot = rig.core.get_session(sid)
    assert snapshot["session"]["workspace"] is None
    assert snapshot["workspace"] == str(rig.workspace.resolve())
    inside = rig.workspace / "项目 ‮txt"
    inside.mkdir()
    other = rig.core.new_session(workspace=str(inside))
    assert rig.core.get_session(other["id"])["workspace"] == str(inside.resolve())


def test_the_keyring_is_opened_once_however_many_threads_ask(
    app_paths: Any, tmp_path: Path
) -> None:
    import threading

    from tray_app.core.service import Core
    from tray_app.store.settings import Settings

    opened: list[int] = []

    class FakeKeyring:
        usable = True
        reason = None

        def __init__(self) -> None:
            opened.append(1)

        def get(self, name: str) -> str | None:
            return None

        def keyring_state(self) -> str:
            return "unlocked"

        def remembered(self, name: str) -> str | None:
            return None

    core = Core(
        settings=Settings(allowed_dirs=[str(tmp_path)]),
        paths=app_paths,
        persist_settings=False,
        secrets=FakeKeyring,  # type: ignore[arg-type]
    ).start()
    start = threading.Barrier(8)
    seen: list[bool] = []

    def ask() -> None:
        start.wait(timeout=10)
        seen.append(core.keyring_status()["usable"])

    try:
        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
        assert seen == [True] * 8
        assert opened == [1]
        assert core.get_settings()["keyring_usable"] is True  # reported once it is open
    finally:
        core.stop()
