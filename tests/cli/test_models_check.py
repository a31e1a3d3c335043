"""``metona-tray models check NAME``: the real command as a subprocess against the fake Ollama
and OpenAI servers on 127.0.0.1; its finding is printed in the terminal's language (or as
JSON) and kept in the settings file, so a later ``metona-tray chat`` uses the mode it implies.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.cli import chat_args, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import text_turn, tool_turn
from tests.support import terminal_mode_rig
from tests.support.terminal_mode_rig import Run
from tray_app.base.paths import AppPaths
from tray_app.core.model_check import PROBE_NAME

home = terminal_mode_rig.home
workspace = terminal_mode_rig.workspace
run = terminal_mode_rig.run

PROBE = [(PROBE_NAME, {"number": 42})]


def _settings(metona_home: Path) -> dict[str, object]:
    file = AppPaths.from_env({"METONA_HOME": str(metona_home)}).settings_file
    data = json.loads(file.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_a_model_without_tools_is_found_via_text_and_chat_then_describes_the_tools(
    run: Run, fake_ollama: FakeOllama, metona_home: Path, workspace: Path
) -> None:
    fake_ollama.script(tool_turn(PROBE))
    result = run("models", "check", "gemma3:4b", "--json", "--endpoint", fake_ollama.url)
    assert result.returncode == 0, result.stderr
    row = json.loads(result.stdout)
    assert row == {
        "model": "gemma3:4b",
        "result": "text",
        "tool_mode": "prompt",
        "stored": True,
        "error": None,
    }
    saved = _settings(metona_home)
    assert saved["model_tool_checks"] == {"gemma3:4b": "text"}
    assert saved["model_tool_modes"] == {"gemma3:4b": "prompt"}
    assert "endpoint" not in saved or saved["endpoint"] != fake_ollama.url  # flags not saved
    # the next chat offers gemma3 its tools through the prompt
    fake_ollama.script(text_turn("Nothing to do."))
    chat = run(*chat_args(fake_ollama.url, workspace, "hello", model="gemma3:4b"))
    assert chat.returncode == 0, chat.stderr
    request = fake_ollama.chat_requests[-1]
    assert "tools" not in request
    assert "### read_file" in request["messages"][0]["content"]


def test_switched_off_by_a_check_the_chat_is_plain(
    run: Run, fake_ollama: FakeOllama, metona_home: Path, workspace: Path
) -> None:
    fake_ollama.script(text_turn("42"), text_turn("42"))
    result = run("models", "check", "llama3.2", "--endpoint", fake_ollama.url)
    assert result.returncode == 0, result.stderr
    assert "llama3.2: no tool calls" in result.stdout
    assert "Tools are switched off" in result.stdout
    assert _settings(metona_home)["model_tool_modes"] == {"llama3.2:latest": "off"}
    fake_ollama.script(text_turn("Plain."))
    chat = run(*chat_args(fake_ollama.url, workspace, "--json", "hi", model="llama3.2"))
    assert chat.returncode == 0, chat.stderr
    assert "tools" not in fake_ollama.chat_requests[-1]
    assert '"code":"tools_off"' in chat.stdout.replace(" ", "")


def test_the_finding_in_chinese_and_through_an_openai_server(
    metona_home: Path, tmp_path: Path
) -> None:
    with FakeOpenAI() as fake:
        fake.script(tool_turn(PROBE))
        env = cli_env(metona_home, tmp_path / "home", lang="zh_CN.UTF-8")
        command = ["models", "check", "gpt-4o-mini", "--provider", "openai"]
        result = run_cli([*_python(), *command, "--endpoint", fake.url], env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "gpt-4o-mini：原生工具调用" in result.stdout
    assert "正在检查" in result.stderr
    assert _settings(metona_home)["model_tool_checks"] == {"gpt-4o-mini:latest": "native"}


def test_a_model_the_server_does_not_have_fails_with_its_words(
    run: Run, fake_ollama: FakeOllama, metona_home: Path
) -> None:
    result = run("models", "check", "nosuch:1b", "--endpoint", fake_ollama.url)
    assert result.returncode == 1
    assert "nosuch:1b" in result.stderr
    as_json = run("models", "check", "nosuch:1b", "--json", "--endpoint", fake_ollama.url)
    assert as_json.returncode == 1
    row = json.loads(as_json.stdout)
    assert (row["result"], row["stored"]) == (None, False) and "nosuch:1b" in row["error"]
    assert not AppPaths.from_env({"METONA_HOME": str(metona_home)}).settings_file.exists()


def _python() -> list[str]:
    import sys

    return [sys.executable, "-m", "tray_app"]


def test_with_the_app_running_the_finding_is_kept_by_the_app(
    run: Run, fake_ollama: FakeOllama, metona_home: Path
) -> None:
    """The app saves its settings from memory: a finding written to the file behind its back
    would be lost at its next save, so the check hands it to the app instead."""
    import threading

    from tray_app.core.bootstrap import start_app
    from tray_app.desktop.instance.instance import SingleInstance
    from tray_app.desktop.instance.instance_dispatch import InstanceCommands
    from tray_app.store.settings import Settings, save_settings

    paths = AppPaths.under(metona_home)
    save_settings(Settings(endpoint=fake_ollama.url), paths.settings_file)
    running = start_app(paths, mcp="off")
    instance = SingleInstance(paths.runtime_dir)
    assert instance.acquire()
    quitting, started = threading.Event(), threading.Event()
    started.set()
    commands = InstanceCommands(
        core=lambda: running.core, quit=quitting.set, quitting=quitting, started=started
    )
    instance.serve(commands.handle, conversations=commands.conversations())
    log = running.core.bus.subscribe()
    try:
        fake_ollama.script(tool_turn(PROBE))
        result = run("models", "check", "gemma3:4b", "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["tool_mode"] == "prompt"
        assert running.core.settings.model_tool_modes == {"gemma3:4b": "prompt"}
        assert _settings(metona_home)["model_tool_checks"] == {"gemma3:4b": "text"}
        updated = None
        for _ in range(50):  # the events the store made, until the model list
            event = log.get(timeout=5)
            assert event is not None, "no models_updated event"
            if getattr(event, "type", "") == "models_updated":
                updated = event
                break
        assert updated is not None
        gemma = next(m for m in updated.models if m["name"] == "gemma3:4b")
        assert gemma["tool_check"] == "text"  # the page's model menu is told
        # the app's next save keeps it
        running.core.update_settings({"temperature": 0.2})
        assert _settings(metona_home)["model_tool_modes"] == {"gemma3:4b": "prompt"}
    finally:
        log.close()
        quitting.set()
        instance.release()
        running.close(1.5)


def test_doctor_says_which_models_get_their_tools_via_the_prompt(
    run: Run, fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    report = json.loads(run("doctor", "--json", "--endpoint", fake_ollama.url).stdout)
    modes = {m["name"]: m["tool_mode"] for m in report["server"]["models"]}
    assert modes == {"qwen3:8b": "native", "gemma3:4b": "prompt", "llama3.2:latest": "native"}
    fake_ollama.script(text_turn("42"), text_turn("42"))
    assert run("models", "check", "llama3.2", "--endpoint", fake_ollama.url).returncode == 0
    english = run("doctor", "--endpoint", fake_ollama.url).stdout
    assert "- gemma3:4b: completion, vision; tools via prompt" in english
    assert "- llama3.2:latest: completion, tools; tools off" in english
    env = cli_env(metona_home, tmp_path / "home", lang="zh_CN.UTF-8")
    chinese = run_cli([*_python(), "doctor", "--endpoint", fake_ollama.url], env).stdout
    assert "- gemma3:4b: completion, vision；通过提示词使用工具" in chinese
