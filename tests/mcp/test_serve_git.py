"""``metona-tray mcp serve`` offers the git tools: a client lists them with their hints, reads a
repository's status, and commits with --yes while the repository's pre-commit hook does not
run; without a flag and without the app the commit is refused."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import IO

import pytest

from tests.mcp.serve_rig import serve
from tests.mcp.test_serve_app import work  # noqa: F401 - its folder and settings

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

SETUP_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Setup",
    "GIT_AUTHOR_EMAIL": "setup@example.invalid",
    "GIT_COMMITTER_NAME": "Setup",
    "GIT_COMMITTER_EMAIL": "setup@example.invalid",
    "PATH": os.environ["PATH"],
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=SETUP_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout


def has_commit(folder: Path) -> bool:
    probe = ["git", "rev-parse", "--verify", "HEAD"]
    return subprocess.run(probe, cwd=folder, capture_output=True, check=False).returncode == 0


def repo_with_hook(folder: Path, marker: Path) -> Path:
    git(folder, "init", "-q", "-b", "main")
    git(folder, "config", "user.name", "仓库 Owner")
    git(folder, "config", "user.email", "owner@example.invalid")
    hook = folder / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    hook.chmod(0o755)
    (folder / "-新.txt").write_text("内容\n", encoding="utf-8")
    return folder


async def test_serve_offers_the_git_tools_and_commits_without_the_hook(
    metona_home: Path,
    work: Path,  # noqa: F811
    tmp_path: Path,
    errlog: IO[str],
) -> None:
    marker = tmp_path / "ran.txt"
    repo_with_hook(work, marker)
    async with serve(metona_home, work, errlog, "--yes") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {"git_status", "git_diff", "git_log", "git_commit"} <= set(tools)
        assert tools["git_status"].annotations.read_only_hint is True
        assert tools["git_commit"].annotations.read_only_hint is False
        status = await client.call_tool("git_status", {})
        assert status.is_error is False and "-新.txt" in status.content[0].text
        done = await client.call_tool("git_commit", {"message": "第一", "files": ["-新.txt"]})
        assert done.is_error is False, done.content
    assert git(work, "log", "-1", "--format=%s|%an").strip() == "第一|仓库 Owner"
    assert not marker.exists()


async def test_without_a_flag_or_the_app_the_commit_is_refused(
    metona_home: Path,
    work: Path,  # noqa: F811
    tmp_path: Path,
    errlog: IO[str],
) -> None:
    marker = tmp_path / "ran.txt"
    repo_with_hook(work, marker)
    async with serve(metona_home, work, errlog) as client:
        refused = await client.call_tool("git_commit", {"message": "x", "files": ["-新.txt"]})
    assert refused.is_error is True
    assert not has_commit(work)
    assert not marker.exists()
