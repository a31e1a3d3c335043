"""``metona-tray chat`` as a subprocess against fake Ollama, while this process swaps a folder
of the workspace with a symbolic link to an outside folder in a tight loop: every file tool
runs under the swap, and nothing outside is read, listed, written, moved or deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.tools.conftest import tree
from tests.tools.swap_rig import OUTSIDE_MARK, build, swapping

SPARES = 40


def _calls() -> list[tuple[str, dict[str, Any]]]:
    """Each file tool on paths below the swapped folder, with distinct arguments."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for n in range(SPARES // 2):
        calls += [
            ("read_file", {"path": "sub/deep/y.txt", "end_line": n + 1}),
            ("read_multiple_files", {"paths": ["sub/x.txt", f"sub/deep/s{n}.txt"]}),
            ("get_file_info", {"path": f"sub/deep/s{n + SPARES // 2}.txt"}),
            ("list_directory", {"path": "sub/deep" + "/." * n}),
            ("directory_tree", {"path": "sub" + "/." * n}),
            ("search_files", {"path": "sub", "query": f"OUTSIDE{'-' * (n % 3)}"}),
            ("write_file", {"path": f"sub/deep/w{n}.txt", "content": f"写 {n} 🎈\n"}),
            ("create_directory", {"path": f"sub/deep/made{n}"}),
            ("move_file", {"source": f"sub/deep/s{n}.txt", "destination": f"sub/m{n}.txt"}),
            ("delete_file", {"path": f"sub/deep/s{n + SPARES // 2}.txt"}),
        ]
    return calls


def test_every_tool_holds_containment_while_a_folder_is_swapped(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace, outside = tmp_path / "work", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    world = build(workspace, outside, spares=SPARES)
    config = metona_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    settings = {"allowed_dirs": [str(workspace)], "max_tool_calls_per_round": 500}
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    before = tree(outside)
    calls = _calls()
    fake_ollama.script(tool_turn(calls), text_turn("All done."))
    env = cli_env(metona_home, tmp_path / "home")
    command = chat_command(fake_ollama.url, workspace, "--yes-all")
    with swapping(world):
        result = run_cli(command, env, "go\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "All done." in result.stdout
    assert world.swaps > 0
    told = json.dumps(fake_ollama.chat_requests, ensure_ascii=False)
    assert OUTSIDE_MARK not in told and OUTSIDE_MARK not in result.stdout
    assert tree(outside) == before
    answers = [
        json.loads(m["content"])
        for m in fake_ollama.chat_requests[1]["messages"]
        if m["role"] == "tool"
    ]
    assert len(answers) == len(calls)
    assert any(a.get("success") for a in answers)  # the swap leaves room for real answers
