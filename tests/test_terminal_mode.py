"""``metona-tray chat`` and ``doctor`` as a user runs them: a subprocess against fake Ollama.

These cover the integration scenarios 1-4 end to end, with the real file
tools, the real sandbox and the real chat store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import chat_args
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import midstream_error_turn, slow_turn, text_turn, tool_turn
from tray_app.events import parse_event

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def run(metona_home: Path, home: Path, tmp_path: Path) -> Run:
    cwd = tmp_path / "cwd"
    cwd.mkdir()

    def go(*args: str, stdin: str | None = None, timeout: float = 60) -> Any:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
        env.update(
            METONA_HOME=str(metona_home),
            HOME=str(home),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            NO_COLOR="1",
        )
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        return subprocess.run(
            [sys.executable, "-m", "tray_app", *args],
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            timeout=timeout,
        )

    return go


def events(stdout: str) -> list[dict[str, Any]]:
    """Every stdout line of ``--json`` is one event of the wire contract (tray_app/events.py)."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    for line in lines:
        parse_event(line)  # raises on anything that is not a known event
    return [json.loads(line) for line in lines]


def chat(run: Run, fake: FakeOllama, workspace: Path, prompt: str, *flags: str) -> Any:
    return run(*chat_args(fake.url, workspace, "--json", *flags, prompt))


def test_done_when_a_scripted_write_lands_and_the_answer_streams(
    run: Run,
    fake_ollama: FakeOllama,
    workspace: Path,
    home: Path,
    metona_home: Path,
    tmp_path: Path,
) -> None:
    fake_ollama.script(
        tool_turn(
            [("write_file", {"path": "hello.txt", "content": "Hello from the model\n"})],
            thinking="I will write the file.",
            on_done_chunk=True,
        ),
        text_turn("I wrote hello.txt for you."),
    )
    result = chat(run, fake_ollama, workspace, "write hello.txt", "--yes")
    assert result.returncode == 0, result.stderr
    seen = events(result.stdout)  # every stdout line is a JSON event
    kinds = [e["type"] for e in seen]
    assert kinds[-1] == "turn_finished"
    assert kinds.index("turn_started") < kinds.index("content_delta")
    assert "thinking_delta" in kinds and "approval_needed" in kinds
    answer = "".join(e["text"] for e in seen if e["type"] == "content_delta")
    assert answer == "I wrote hello.txt for you."
    assert (workspace / "hello.txt").read_text() == "Hello from the model\n"
    updates = [e for e in seen if e["type"] == "tool_call_update" and e["status"] == "success"]
    assert updates and updates[0]["result"]["created"] is True
    # Nothing written outside METONA_HOME and the workspace.
    assert list(home.iterdir()) == []
    assert list((tmp_path / "cwd").iterdir()) == []
    assert (metona_home / "data").is_dir()


def test_without_yes_and_without_a_terminal_writes_are_denied(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    fake_ollama.script(
        tool_turn([("write_file", {"path": "x.txt", "content": "x"})]),
        text_turn("The write was denied."),
    )
    result = run(*chat_args(fake_ollama.url, workspace, "write x"))
    assert result.returncode == 0
    assert "no terminal to ask" in result.stderr
    assert not (workspace / "x.txt").exists()
    assert "The write was denied." in result.stdout
    sent = json.loads(
        next(m for m in fake_ollama.chat_requests[1]["messages"] if m["role"] == "tool")["content"]
    )
    assert sent["success"] is False and "denied" in sent["error"]


def test_yes_does_not_approve_deletes_but_yes_all_does(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    (workspace / "old.txt").write_text("old")
    fake_ollama.script(
        tool_turn([("delete_file", {"path": "old.txt"})]),
        text_turn("not deleted"),
        tool_turn([("delete_file", {"path": "old.txt"})]),
        text_turn("deleted"),
    )
    assert chat(run, fake_ollama, workspace, "delete old", "--yes").returncode == 0
    assert (workspace / "old.txt").exists()
    assert chat(run, fake_ollama, workspace, "delete old", "--yes-all").returncode == 0
    assert not (workspace / "old.txt").exists()


def test_scenario_1_code_review_lists_then_reads_each_file(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    src = workspace / "src" / "main"
    src.mkdir(parents=True)
    (src / "a.ts").write_text("import fs from 'fs';\nexport const a = 1;\n")
    (src / "b.ts").write_text("import path from 'path';\nexport const b = path.sep;\n")
    fake_ollama.script(
        tool_turn([("list_directory", {"path": "src/main"})]),
        tool_turn(
            [("read_file", {"path": "src/main/a.ts"}), ("read_file", {"path": "src/main/b.ts"})]
        ),
        text_turn("a.ts never uses `fs`; b.ts uses its import."),
    )
    result = chat(run, fake_ollama, workspace, "find unused imports in src/main/")
    assert result.returncode == 0, result.stderr
    requests = fake_ollama.chat_requests
    listing = json.loads([m for m in requests[1]["messages"] if m["role"] == "tool"][-1]["content"])
    assert sorted(e["name"] for e in listing["entries"]) == ["a.ts", "b.ts"]
    reads = [json.loads(m["content"]) for m in requests[2]["messages"] if m["role"] == "tool"][-2:]
    assert "import fs from 'fs';" in reads[0]["content"]
    assert "path.sep" in reads[1]["content"]
    assert "never uses" in "".join(
        e["text"] for e in events(result.stdout) if e["type"] == "content_delta"
    )


def test_scenario_2_create_a_new_file(run: Run, fake_ollama: FakeOllama, workspace: Path) -> None:
    code = "export const add = (a: number, b: number) => a + b;\n"
    fake_ollama.script(
        tool_turn([("write_file", {"path": "utils/math.ts", "content": code})]),
        text_turn("Created utils/math.ts with add."),
    )
    result = chat(run, fake_ollama, workspace, "create utils/math.ts", "--yes")
    assert result.returncode == 0, result.stderr
    assert (workspace / "utils" / "math.ts").read_text() == code


def test_scenario_3_search_then_modify(run: Run, fake_ollama: FakeOllama, workspace: Path) -> None:
    (workspace / "app.ts").write_text("var x = 1;\nconst y = 2;\n")
    fake_ollama.script(
        tool_turn(
            [
                (
                    "search_files",
                    {
                        "path": ".",
                        "query": "var ",
                        "search_type": "content",
                        "file_extensions": [".ts"],
                    },
                )
            ]
        ),
        tool_turn([("read_file", {"path": "app.ts"})]),
        tool_turn([("write_file", {"path": "app.ts", "content": "const x = 1;\nconst y = 2;\n"})]),
        text_turn("Replaced var with const in app.ts."),
    )
    result = chat(run, fake_ollama, workspace, "replace var with const", "--yes")
    assert result.returncode == 0, result.stderr
    hits = json.loads(
        [m for m in fake_ollama.chat_requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
    )
    assert hits["total_matches"] == 1 and hits["results"][0]["matches"][0]["line"] == 1
    assert (workspace / "app.ts").read_text() == "const x = 1;\nconst y = 2;\n"


def test_scenario_4_project_init_creates_folders_and_files(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    fake_ollama.script(
        tool_turn(
            [
                ("create_directory", {"path": "proj/src"}),
                ("create_directory", {"path": "proj/test"}),
            ]
        ),
        tool_turn(
            [
                ("write_file", {"path": "proj/package.json", "content": '{"name": "proj"}\n'}),
                ("write_file", {"path": "proj/src/index.js", "content": "console.log(1);\n"}),
            ]
        ),
        text_turn("Project ready."),
    )
    result = chat(run, fake_ollama, workspace, "init a node project", "--yes")
    assert result.returncode == 0, result.stderr
    assert (workspace / "proj" / "test").is_dir()
    assert json.loads((workspace / "proj" / "package.json").read_text()) == {"name": "proj"}
    assert (workspace / "proj" / "src" / "index.js").exists()


def test_a_model_without_tools_still_answers(
    run: Run, fake_ollama: FakeOllama, workspace: Path
) -> None:
    fake_ollama.script(text_turn("Just chatting."))
    result = run(*chat_args(fake_ollama.url, workspace, "--json", "hello", model="gemma3:4b"))
    assert result.returncode == 0, result.stderr
    assert "tools" not in fake_ollama.chat_requests[0]
    assert any(
        e["type"] == "notice" and e["code"] == "tools_unsupported" for e in events(result.stdout)
    )


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


def _save_settings(metona_home: Path, **fields: Any) -> None:
    from tray_app.paths import AppPaths
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


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "matches 4-6; next from offset 6"),
        ("zh-CN", "第 4-6 处匹配；下一页从 offset 6 开始"),
    ],
)
def test_the_terminal_prints_which_matches_a_search_page_shows(
    run: Run,
    fake_ollama: FakeOllama,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    expected: str,
) -> None:
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8" if language == "zh-CN" else "en_US.UTF-8")
    for index, name in enumerate(["数据 🙂.txt", "\u202etxt.b", "c.txt"]):
        lines = [f"needle {index}.{k} 数据 \u202e🙂" for k in range(3)]
        (workspace / name).write_text("\n".join(["x", *lines]) + "\n")
    query = {"path": ".", "query": "needle", "search_type": "content", "max_results": 3}
    fake_ollama.script(
        tool_turn([("search_files", {**query, "offset": 3})]), text_turn("Found them.")
    )
    result = run(*chat_args(fake_ollama.url, workspace, "find the needles"))
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert expected in shown, shown
    assert "Found them." in result.stdout
