"""``metona-tray chat`` as a subprocess against fake Ollama, for the file tools' last gaps:
edits on big files answer at once, encodings that would rewrite other bytes are refused,
a folder moved or created where it makes something run later is always asked, and
``list_allowed_directories`` names only folders the tools can use."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn


def _chat(
    fake: FakeOllama, metona_home: Path, tmp_path: Path, workspace: Path, stdin: str, *flags: str
) -> Any:
    env = cli_env(metona_home, tmp_path / "home")
    return run_cli(chat_command(fake.url, workspace, *flags), env, stdin)


def edit(old: str, new: str) -> dict[str, str]:
    return {"old_text": old, "new_text": new}


def _answers(fake: FakeOllama, request: int = 1) -> list[dict[str, Any]]:
    """What the model was told about each call of the turn, in order."""
    messages = fake.chat_requests[request]["messages"]
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


def test_edits_of_big_files_answer_at_once(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    """A one-character old_text on 5 MB and 5 KB that matches nothing in a 1 MB minified
    line: each took minutes in the preview before anyone was asked."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "big 大.txt").write_text("Aé(中) x\n" * 450_000, encoding="utf-8")
    rng = random.Random(3)
    (workspace / "app.min.js").write_text("".join(rng.choices("abcdef(){};,.= ", k=1024 * 1024)))
    noise = "".join(rng.choices("klmnop qrs", k=5000))
    fake_ollama.script(
        tool_turn(
            [
                ("edit_file", {"path": "big 大.txt", "edits": [edit("A", "B")]}),
                ("edit_file", {"path": "app.min.js", "edits": [edit(noise, "")]}),
            ]
        ),
        text_turn("Both edits were refused."),
    )
    result = _chat(fake_ollama, metona_home, tmp_path, workspace, "edit\n/exit\n", "--yes-all")
    assert result.returncode == 0, result.stderr
    assert "Both edits were refused." in result.stdout
    many, missing = _answers(fake_ollama)
    assert many["success"] is False and "matches more than 1000 places" in many["error"]
    assert "lines 1, 2, 3, 4, 5, …" in many["error"]
    assert missing["success"] is False and "was not found" in missing["error"]
    assert "1: " in missing["error"]  # the nearest line, numbered


def test_an_encoding_that_rewrites_bytes_is_refused_in_both_languages(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    """unicode_escape would have written the whole file as one line of literal \\n while the
    approved diff showed one changed line; write_file with utf-7 likewise."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    target = workspace / "配置.ini"
    original = b"[main]\nname = demo\nsize = 3\n"
    target.write_bytes(original)
    calls = [
        (
            "edit_file",
            {
                "path": target.name,
                "edits": [edit("size = 3", "size = 4")],
                "encoding": "unicode_escape",
            },
        ),
        ("write_file", {"path": "新.txt", "content": "一 + 二\n", "encoding": "utf-7"}),
    ]
    for lang, words in (
        ("en_US.UTF-8", "does not write text back byte for byte"),
        ("zh_CN.UTF-8", "无法逐字节写回文本"),
    ):
        fake_ollama.script(tool_turn(calls), text_turn("Refused."))
        env = cli_env(metona_home, tmp_path / "home", lang=lang)
        result = run_cli(chat_command(fake_ollama.url, workspace, "--yes-all"), env, "go\n/exit\n")
        assert result.returncode == 0, result.stderr
        failed = [line for line in result.stderr.splitlines() if "✗" in line]
        assert len(failed) == 2 and all(words in line for line in failed), result.stderr
        assert "utf-8, utf-16" in failed[0]
        edited, written = _answers(fake_ollama, len(fake_ollama.chat_requests) - 1)
        for answer in (edited, written):  # the model reads English, whatever the terminal
            assert "does not write text back byte for byte" in answer["error"]
            assert "latin1" in answer["error"]
        assert target.read_bytes() == original
        assert not (workspace / "新.txt").exists()


def test_folders_put_where_they_run_later_are_asked_even_with_yes_all(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / "prepared 准备").mkdir(parents=True)
    (home / "prepared 准备" / "evil.desktop").write_text("[Desktop Entry]\nExec=sh -c x\n")
    (home / "vs").mkdir()
    (home / "vs" / "tasks.json").write_text('{"tasks": [{"runOptions": "folderOpen"}]}\n')
    fake_ollama.script(
        tool_turn(
            [
                ("move_file", {"source": "prepared 准备", "destination": "~/.config/autostart"}),
                ("move_file", {"source": "vs", "destination": ".vscode"}),
                ("create_directory", {"path": "~/Library/LaunchAgents"}),
            ]
        ),
        text_turn("All three were denied."),
    )
    result = _chat(fake_ollama, metona_home, tmp_path, home, "set up\n/exit\n", "--yes-all")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("runs at login, so it is always asked") == 2, result.stderr
    assert "runs when the folder is opened in VS Code, so it is always asked" in result.stderr
    assert all("denied" in a["error"] for a in _answers(fake_ollama))
    assert (home / "prepared 准备" / "evil.desktop").exists() and (home / "vs").is_dir()
    assert not (home / ".config").exists() and not (home / ".vscode").exists()
    assert not (home / "Library").exists()


def test_listings_name_only_usable_folders_and_say_where_they_were_cut(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("KEY")
    (home / "keys 钥匙").symlink_to(home / ".ssh")
    config = metona_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    settings = {"allowed_dirs": [str(home / ".ssh"), str(home / "keys 钥匙")]}
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    workspace = tmp_path / "work"
    (workspace / "a").mkdir(parents=True)
    for n in range(600):
        (workspace / "a" / f"{n:03d}.txt").write_text("")
    (workspace / "b").mkdir()
    (workspace / "b" / "later.txt").write_text("")
    fake_ollama.script(
        tool_turn([("list_allowed_directories", {}), ("directory_tree", {"path": "."})]),
        text_turn("Listed."),
    )
    result = _chat(fake_ollama, metona_home, tmp_path, workspace, "list\n/exit\n")
    assert result.returncode == 0, result.stderr
    allowed, tree = _answers(fake_ollama)
    assert allowed["directories"] == [str(workspace)]
    assert tree["truncated"] is True
    a, b = tree["tree"]
    assert a["name"] == "a" and a["truncated"] is True and a["children"]
    assert b["name"] == "b" and b["truncated"] is True and b["children"] == []
