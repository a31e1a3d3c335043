"""The real ``metona-tray chat`` subprocess against both fake servers, one prompt per corpus
shape (``tests/fakes/model_shapes.py``): every call left in the text writes its file through
``--yes``, every other shape ends with a clear notice, and no markup reaches the answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.cli import chat_args, cli_env, run_cli
from tests.fakes.model_shapes import CONTENT, MARKUP, call_shapes, ending_shapes
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import Turn, text_turn

NOTICE_WORDS = {
    "text_call_unusable": "so nothing ran",
    "answer_cut": "The answer was cut off",
    "answer_incomplete": "ended before the model server said it was finished",
    "thinking_only": "reasoning never reached an answer",
    "empty_answer": "The model sent an empty answer",
}


@pytest.mark.parametrize("wire", ["ollama", "openai"])
def test_every_shape_in_the_terminal(wire: str, metona_home: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    turns: list[Turn] = []
    prompts: list[str] = []
    for number, shape in enumerate(call_shapes()):
        turns += [shape.turn(), text_turn(f"Wrote file {number}.")]
        prompts.append(f"write {shape.name}")
    for shape in ending_shapes():
        turns.append(shape.turn())
        prompts.append(f"say {shape.name}")
    fake: FakeOllama | FakeOpenAI
    if wire == "ollama":
        fake, model, extra = FakeOllama(), "qwen3:8b", ["--think"]
    else:
        fake, model, extra = FakeOpenAI(), "gpt-4o-mini", ["--provider", "openai"]
    with fake:
        fake.script(*turns)
        args = chat_args(fake.url, workspace, "--yes", *extra, model=model)
        stdin = "\n".join(prompts) + "\n/exit\n"
        result = run_cli(
            [sys.executable, "-m", "tray_app", *args],
            cli_env(metona_home, tmp_path / "home"),
            stdin,
            timeout=180,
        )
        assert fake.pending_turns == 0, result.stderr
    assert result.returncode == 0, result.stderr
    for shape in call_shapes():
        assert (workspace / shape.path()).read_text(encoding="utf-8") == CONTENT, shape.name
    assert result.stderr.count("[tool] ✓ write_file success") == len(call_shapes())
    for mark in MARKUP:
        assert mark not in result.stdout, mark
    assert "I will write the file now." in result.stdout and "Hello! 你好 👋" in result.stdout
    for code, words in NOTICE_WORDS.items():
        expected = sum(1 for shape in ending_shapes() if shape.notice == code)
        assert result.stderr.count(words) == expected, (code, result.stderr[-3000:])
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("wire", "lang", "label"),
    [
        ("ollama", "en_US.UTF-8", "[the text above was the model's reasoning; its answer:]"),
        ("openai", "zh_CN.UTF-8", "[以上是模型的思考过程；它的回答：]"),
    ],
)
def test_reasoning_before_a_lone_close_tag_is_called_reasoning(
    wire: str, lang: str, label: str, metona_home: Path, tmp_path: Path
) -> None:
    """An R1 distill's reasoning streams as answer until its lone ``</think>``: the terminal
    cannot take printed text back, so it says what the text above was and prints the answer
    after it (the answer is the last thing on stdout)."""
    (shape,) = [s for s in ending_shapes() if s.name == "r1_lone_close_think"]
    workspace = tmp_path / "work"
    workspace.mkdir()
    fake: FakeOllama | FakeOpenAI
    if wire == "ollama":
        fake, model, extra = FakeOllama(), "qwen3:8b", []
    else:
        fake, model, extra = FakeOpenAI(), "gpt-4o-mini", ["--provider", "openai"]
    with fake:
        fake.script(shape.turn())
        args = chat_args(fake.url, workspace, *extra, "hello", model=model)
        result = run_cli(
            [sys.executable, "-m", "tray_app", *args],
            cli_env(metona_home, tmp_path / "home", lang=lang),
            "",
            timeout=60,
        )
    assert result.returncode == 0, result.stderr
    assert shape.thinking_after is not None
    assert shape.thinking_after in result.stdout  # what streamed before the tag arrived
    assert result.stdout.rstrip().endswith(shape.answer), result.stdout
    assert result.stdout.count(shape.answer) == 2  # streamed once, then printed as the answer
    assert label in result.stderr, result.stderr
