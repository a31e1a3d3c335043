"""An answer that claims a change nothing made gets a quiet note: real Core, both fake
servers over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn


def notes(rig: Rig, turn: str) -> list[Any]:
    return [
        e for e in rig.log.of_type("notice") if e.code == "nothing_changed" and e.turn_id == turn
    ]


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
@pytest.mark.parametrize(
    ("language", "answer", "said"),
    [
        (
            "en",
            "I've created `todo.md` with your three tasks.",
            "No files were changed in this turn.",
        ),
        ("zh-CN", "好的，已创建文件 待办.md 🙂", "本轮没有更改任何文件。"),
    ],
)
def test_a_claim_without_a_change_gets_the_note_after_the_answer(
    make_rig: Any, openai: bool, language: str, answer: str, said: str
) -> None:
    rig: Rig = make_rig(openai=openai, language=language)
    rig.fake.script(text_turn(answer))
    _, turn = rig.send("make me a todo file")
    assert rig.finish(turn).stop_reason == "done"
    (note,) = notes(rig, turn)
    assert note.level == "info" and note.message == said
    kinds = [getattr(e, "type", "") for e in rig.log.events]
    assert kinds.index("message_finished") < kinds.index("notice") < kinds.index("turn_finished")
    assert len(rig.fake.chat_requests) == 1  # no retry


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_a_change_that_ran_or_an_answer_without_a_claim_gets_no_note(
    make_rig: Any, openai: bool
) -> None:
    rig: Rig = make_rig(openai=openai, confirmation_mode="full_auto")
    rig.fake.script(
        tool_turn([("note", {"text": "buy milk"})]),
        text_turn("I've saved the note."),
        text_turn("Blue, because of Rayleigh scattering."),
    )
    sid, first = rig.send("note it")
    assert rig.finish(first).stop_reason == "done"
    _, second = rig.send("why is the sky blue?", sid)
    assert rig.finish(second).stop_reason == "done"
    assert rig.notes == ["buy milk"]
    assert notes(rig, first) == [] and notes(rig, second) == []


def test_a_read_is_not_a_change(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.fake.script(tool_turn([("echo", {"text": "x"})]), text_turn("File created successfully."))
    _, turn = rig.send("create it")
    assert rig.finish(turn).stop_reason == "done"
    assert len(notes(rig, turn)) == 1
