"""``metona-tray chat`` when things go wrong: a model without tools, an error mid-stream, a
server down or busy, an endless or silent answer, wrong arguments.

A real subprocess against fake Ollama on 127.0.0.1 (``tests.support.terminal_mode_rig``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import chat_args
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import midstream_error_turn, slow_turn, text_turn
from tests.support import terminal_mode_rig
from tests.support.terminal_mode_rig import Run, chat, events

home = terminal_mode_rig.home
workspace = terminal_mode_rig.workspace
run = terminal_mode_rig.run


def test_a_model_without_tools_still_answers_with_the_tools_in_its_prompt(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    fake_ollama.script(text_turn("Just chatting."))
    result = run(*chat_args(fake_ollama.url, workspace, "--json", "hello", model="gemma3:4b"))
    assert result.returncode == 0, result.stderr
    request = fake_ollama.chat_requests[0]
    assert "tools" not in request
    assert "<tool_call>" in request["messages"][0]["content"]
    assert not any(e["type"] == "notice" for e in events(result.stdout))


def test_an_error_mid_stream_exits_1_with_the_servers_words_and_keeps_the_text(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    fake_ollama.script(
        midstream_error_turn("The partial ans", "model runner has unexpectedly stopped")
    )
    result = run(*chat_args(fake_ollama.url, workspace, "hi"))
    assert result.returncode == 1
    assert "The partial ans" in result.stdout
    assert "model runner has unexpectedly stopped" in result.stderr
    sessions = run("sessions")
    session_id = sessions.stdout.split()[0]
    fake_ollama.script(text_turn("continued"))
    again = run(
        "chat",
        "--json",
        "--session",
        session_id,
        "--endpoint",
        fake_ollama.url,
        "--workspace",
        str(workspace),
        "go on",
    )
    assert again.returncode == 0, again.stderr
    history = fake_ollama.chat_requests[-1]["messages"]
    assert [m["content"] for m in history if m["role"] == "assistant"] == ["The partial ans"]
    assert [m["content"] for m in history if m["role"] == "user"] == ["hi", "go on"]


def test_server_down_exits_1_and_says_how_to_fix_it(run: Run, workspace: Path) -> None:
    result = run(*chat_args("http://127.0.0.1:9", workspace, "hi"))
    assert result.returncode == 1
    assert "ollama" in result.stderr.lower()


@pytest.mark.parametrize(
    "args",
    [
        ["chat", "--max-rounds", "0", "hi"],
        ["chat", "--workspace", "/no/such/folder", "hi"],
        ["chat", "--workspace", "/etc", "hi"],  # a blocked system folder
        ["chat", "--endpoint", "ftp://x", "hi"],
        ["chat", "--bogus"],
        ["nonsense-command"],
    ],
)
def test_usage_errors_exit_2(run: Run, args: list[str]) -> None:
    result = run(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.strip()


def _save_settings(metona_home: Path, **fields: Any) -> None:
    from tray_app.base.paths import AppPaths
    from tray_app.store.settings import Settings, save_settings

    paths = AppPaths.under(metona_home)
    paths.ensure()
    save_settings(Settings(**fields), paths.settings_file)


def test_an_endless_answer_ends_at_the_length_limit_with_a_notice_and_exit_0(
    run: Run, fake_ollama: FakeOllama, workspace: Path, metona_home: Path
) -> None:
    _save_settings(metona_home, max_answer_chars=1_000, language="zh-CN")
    endless = "长文🙂\u202eabc" * 200_000
    fake_ollama.script(text_turn(endless, chunk_chars=9))
    result = run(
        "chat", "--model", "qwen3:8b", "--endpoint", fake_ollama.url,
        "--workspace", str(workspace), "说个不停",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip("\n") == endless[:1_000]
    assert "回答已达到 1,000 个字符" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_silent_model_shows_waiting_in_the_terminal(
    run: Run, fake_ollama: FakeOllama, workspace: Path, metona_home: Path
) -> None:
    _save_settings(metona_home, waiting_notice_s=0.3)
    fake_ollama.script(slow_turn("Slow but there.", delay=2.0, chunk_chars=8))
    result = run(
        "chat", "--model", "qwen3:8b", "--endpoint", fake_ollama.url,
        "--workspace", str(workspace), "hello?",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip("\n") == "Slow but there."
    assert "… Waiting for the model…" in result.stderr


def test_a_busy_server_is_retried_with_a_notice_in_the_chosen_language(
    run: Run, fake_ollama: FakeOllama, workspace: Path, metona_home: Path
) -> None:
    from tests.fakes.turns import busy_turn

    _save_settings(metona_home, language="zh-CN")
    fake_ollama.script(busy_turn(503, retry_after="0"), text_turn("终于好了。"))
    result = run(
        "chat", "--model", "qwen3:8b", "--endpoint", fake_ollama.url,
        "--workspace", str(workspace), "你好",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip("\n") == "终于好了。"
    assert "[warning] 模型服务器繁忙（HTTP 503），0 秒后重试（第 1 次，共 2 次）。" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_server_still_busy_fails_naming_the_status(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    from tests.fakes.turns import busy_turn

    fake_ollama.script(busy_turn(429, "slow down", retry_after="120"))
    result = chat(run, fake_ollama, workspace, "hi")
    assert result.returncode != 0
    failed = [e for e in events(result.stdout) if e["type"] == "turn_failed"]
    assert failed and "is busy (HTTP 429 Too Many Requests): slow down" in failed[0]["message"]
    assert "It asked to wait 120 s" in failed[0]["message"]
    assert "Traceback" not in result.stderr
