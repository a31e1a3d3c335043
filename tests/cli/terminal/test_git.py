"""``metona-tray chat`` with the git tools, as a subprocess against fake Ollama: a commit
approved with --yes is made and the repository's hooks and fsmonitor do not run; without a
flag and with no one to ask, nothing is committed; the approval line in both languages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SETUP_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Setup",
    "GIT_AUTHOR_EMAIL": "setup@example.invalid",
    "GIT_COMMITTER_NAME": "Setup",
    "GIT_COMMITTER_EMAIL": "setup@example.invalid",
    "PATH": os.environ["PATH"],
}
NEW = "报告 \u202etxt.md 📄"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=SETUP_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout


def hostile_repo(workspace: Path, marker: Path) -> Path:
    """A repository whose hooks and fsmonitor each write ``marker`` when git runs them."""
    repo = workspace / "项目"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "first")
    for hook in ("pre-commit", "commit-msg", "post-commit"):
        path = repo / ".git" / "hooks" / hook
        path.write_text(f"#!/bin/sh\necho {hook} >> '{marker}'\n")
        path.chmod(0o755)
    monitor = workspace.parent / "monitor.sh"
    monitor.write_text(f"#!/bin/sh\necho fsmonitor >> '{marker}'\n")
    monitor.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(monitor))
    (repo / NEW).write_text("新内容\n", encoding="utf-8")
    return repo


def _chat(fake: FakeOllama, home: Path, tmp: Path, work: Path, stdin: str, *flags: str) -> Any:
    env = cli_env(home, tmp / "home")
    return run_cli(chat_command(fake.url, work, *flags), env, stdin)


def _tool_answers(fake: FakeOllama) -> list[dict[str, Any]]:
    return [
        json.loads(m["content"]) for m in fake.chat_requests[-1]["messages"] if m["role"] == "tool"
    ]


def test_a_commit_approved_with_yes_runs_no_hook(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    marker = tmp_path / "ran.txt"
    repo = hostile_repo(workspace, marker)
    # The user's own identity is used; nothing else of their global config is.
    home = tmp_path / "home"
    home.mkdir()
    identity = "[user]\n\tname = 测试 User\n\temail = t@example.invalid\n"
    (home / ".gitconfig").write_text(f'{identity}[core]\n\tfsmonitor = "{marker}"\n')
    fake_ollama.script(
        tool_turn([("git_status", {"path": repo.name})]),
        tool_turn([("git_commit", {"path": repo.name, "message": "加 报告", "files": [NEW]})]),
        tool_turn([("git_log", {"path": repo.name, "max_count": 5})]),
        text_turn("Committed."),
    )
    result = _chat(fake_ollama, metona_home, tmp_path, workspace, "commit it\n/exit\n", "--yes")
    assert result.returncode == 0, result.stderr
    assert "Committed." in result.stdout
    assert "[tool] ✓ git_commit success" in result.stderr, result.stderr
    assert "git_commit path=项目 message=加 报告 files=报告" in result.stderr
    assert "hooks not run" in result.stderr and "commits listed: 2" in result.stderr
    status, commit, log = _tool_answers(fake_ollama)
    assert [f["path"] for f in status["files"]] == [NEW]
    assert commit["success"] is True and commit["files"][0]["path"] == NEW
    assert [c["subject"] for c in log["commits"]] == ["加 报告", "first"]
    assert git(repo, "log", "-1", "--format=%s|%an").strip() == "加 报告|测试 User"
    assert not marker.exists(), marker.read_text()


def test_without_a_flag_no_one_is_asked_and_nothing_is_committed(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    marker = tmp_path / "ran.txt"
    repo = hostile_repo(workspace, marker)
    fake_ollama.script(
        tool_turn([("git_commit", {"path": repo.name, "message": "x", "files": [NEW]})]),
        text_turn("Not committed."),
    )
    result = _chat(fake_ollama, metona_home, tmp_path, workspace, "commit it\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "denied git_commit: no terminal to ask" in result.stderr
    (answer,) = _tool_answers(fake_ollama)
    assert answer["success"] is False
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"
    assert not marker.exists()


def test_the_approval_line_in_both_languages() -> None:
    from tray_app.cli.terminal_preview import preview_summary

    preview = {
        "kind": "git_commit",
        "path": "/w/项目\u202e",
        "branch": "main",
        "message": "x",
        "file_count": 2,
        "added": 3,
        "deleted": 1,
    }
    english = preview_summary(preview, "en")
    assert (
        english.startswith("commits 2 files (+3 -1) in /w/项目") and "hooks do not run" in english
    )
    assert "\u202e" not in english  # a direction control is written out, not obeyed
    assert "不会运行仓库的钩子" in preview_summary(preview, "zh-CN")
