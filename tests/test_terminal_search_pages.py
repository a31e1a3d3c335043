"""A page of a longer search as the real ``metona-tray chat`` prints it: which matches the
model got and where the next page starts, in English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.test_terminal_mode import Run, home, run, workspace  # noqa: F401 (fixtures)


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
    result = run(
        "chat",
        "--model",
        "qwen3:8b",
        "--endpoint",
        fake_ollama.url,
        "--workspace",
        str(workspace),
        "find the needles",
    )
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert expected in shown, shown
    assert "Found them." in result.stdout
