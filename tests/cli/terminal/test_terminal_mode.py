"""``metona-tray chat`` as a user runs it: the integration scenarios 1-4 end to end with the
real file tools, the real sandbox and the real chat store; what --yes and --yes-all approve;
which matches a search page shows.

A real subprocess against fake Ollama on 127.0.0.1 (``tests.support.terminal_mode_rig``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.cli import chat_args
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.support import terminal_mode_rig
from tests.support.terminal_mode_rig import Run, chat, events

home = terminal_mode_rig.home
workspace = terminal_mode_rig.workspace
run = terminal_mode_rig.run


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
