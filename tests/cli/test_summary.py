"""The real ``metona-tray chat`` keeps a long chat's memory: the fourth message of a session
that no longer fits a 4,096-token context is answered with a summary of the oldest messages
(asked once, stored), and the terminal says so quietly in its language. Both wires."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import text_turn
from tray_app.agent.summary import INSTRUCTIONS

SUMMARY = "SUMMARY: 用户在整理 notes.md 🙂"
SAID = {
    "en_US.UTF-8": "oldest messages were summarised to fit the model's context.",
    "zh_CN.UTF-8": "条消息已被总结，以适应模型的上下文。",
}


def answer(n: int) -> str:
    return f"ANSWER{n} " + "lorem ipsum " * 370


@pytest.mark.parametrize("lang", list(SAID))
@pytest.mark.parametrize("wire", ["ollama", "openai"])
def test_a_long_terminal_session_is_summarised_once(
    wire: str, lang: str, metona_home: Path, tmp_path: Path
) -> None:
    settings = metona_home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"num_ctx": 4096}), encoding="utf-8")
    with FakeOpenAI() if wire == "openai" else FakeOllama() as fake:
        fake.script(
            *(text_turn(answer(n), chunk_chars=800) for n in (1, 2, 3)),
            text_turn(SUMMARY),
            text_turn("Fourth answer."),
            text_turn("Fifth answer."),
        )
        command = chat_command(fake.url, tmp_path, "--provider", wire, "--no-tools")
        stdin = "".join(f"question {n}\n" for n in range(1, 6))
        result = run_cli(command, cli_env(metona_home, tmp_path / "home", lang=lang), stdin)
        requests = fake.chat_requests
    assert result.returncode == 0, result.stderr
    assert "Fourth answer." in result.stdout and "Fifth answer." in result.stdout
    asked = [i for i, body in enumerate(requests) if body["messages"][0]["content"] == INSTRUCTIONS]
    assert asked == [3]
    assert SUMMARY in requests[-1]["messages"][0]["content"]
    assert SAID[lang] in result.stderr
