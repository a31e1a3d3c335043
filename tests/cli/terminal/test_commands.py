"""The terminal's other commands as a user runs them: the app without a display, ``doctor``,
``export`` of a stored chat.

A real subprocess against fake Ollama on 127.0.0.1 (``tests.support.terminal_mode_rig``).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.support import terminal_mode_rig
from tests.support.terminal_mode_rig import Run, chat

home = terminal_mode_rig.home
workspace = terminal_mode_rig.workspace
run = terminal_mode_rig.run


def test_without_a_display_the_app_points_to_the_terminal_mode(run: Run) -> None:
    result = run()
    assert result.returncode == 1
    assert "metona-tray chat" in result.stderr


def test_doctor_reports_the_server_and_models(run: Run, fake_ollama: FakeOllama) -> None:
    result = run("doctor", "--json", "--endpoint", fake_ollama.url)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["server"]["reachable"] is True
    assert report["server"]["version"] == "0.12.10"
    models = {m["name"]: m["capabilities"] for m in report["server"]["models"]}
    assert "tools" in models["qwen3:8b"] and "tools" not in models["gemma3:4b"]
    keyring = report["keyring"]
    assert isinstance(keyring["usable"], bool) and keyring["backend"]
    assert keyring["usable"] or keyring["reason"]  # unusable always says why
    down = run("doctor", "--endpoint", "http://127.0.0.1:9")
    assert down.returncode == 1 and "FAIL" in down.stdout


def test_a_stored_chat_exports_as_markdown_and_json(
    run: Run, fake_ollama: FakeOllama, workspace: Path, tmp_path: Path
) -> None:
    fake_ollama.script(
        tool_turn([("write_file", {"path": "plan.md", "content": "# Plan\n"})]),
        text_turn("The plan is written."),
    )
    assert chat(run, fake_ollama, workspace, "write a plan", "--yes").returncode == 0
    session_id = run("sessions").stdout.split()[0]
    markdown = run("export", session_id)
    assert markdown.returncode == 0, markdown.stderr
    assert "write a plan" in markdown.stdout and "The plan is written." in markdown.stdout
    assert "write_file" in markdown.stdout and "plan.md" in markdown.stdout
    target = tmp_path / "chat.json"
    as_json = run("export", session_id, "--format", "json", "--output", str(target))
    assert as_json.returncode == 0, as_json.stderr
    document = json.loads(target.read_text())
    assert "The plan is written." in json.dumps(document)
    assert run("export", "s_missing").returncode == 2
