"""git_status: the branch and the changed, staged and untracked files of a repository."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.git_repo import REPO_HELP, git_failed, git_missing, open_repo
from tray_app.tools.builtin.git_run import GitMissing, GitRunner
from tray_app.tools.result import ToolResult

MAX_ENTRIES = 500


class GitStatusArgs(ToolArgs):
    path: str | None = Field(default=None, description=REPO_HELP)


def parse_status(
    text: str, limit: int = MAX_ENTRIES
) -> tuple[str | None, list[dict[str, Any]], int]:
    """``git status --porcelain=v1 --branch -z``: the branch line and up to ``limit`` entries
    (and how many there were). A rename's entry is followed by its old name."""
    fields = text.split("\0")
    branch = None
    entries: list[dict[str, Any]] = []
    total = 0
    index = 0
    while index < len(fields):
        item = fields[index]
        index += 1
        if not item:
            continue
        if item.startswith("## "):
            branch = item[3:]
            continue
        if len(item) < 4:
            continue
        staged, changed, name = item[0], item[1], item[3:]
        entry: dict[str, Any] = {"path": name, "staged": staged, "unstaged": changed}
        if staged in "RC" and index < len(fields):
            entry["from"] = fields[index]
            index += 1
        total += 1
        if len(entries) < limit:
            entries.append(entry)
    return branch, entries, total


def git_status(ctx: ToolContext, args: GitStatusArgs) -> ToolResult:
    try:
        runner = GitRunner(ctx.policy.workspace, cancel=ctx.cancel)
    except GitMissing as exc:
        return git_missing(exc)
    with runner:
        repo = open_repo(ctx, args.path, runner, access="read")
        if isinstance(repo, dict):
            return repo
        run = runner.run(
            [
                "status",
                "--porcelain=v1",
                "--branch",
                "-z",
                "--untracked-files=all",
                "--ignore-submodules=all",
            ]
        )
    if not run.ok:
        return git_failed(run)
    branch, entries, total = parse_status(run.stdout)
    return {
        "success": True,
        "repository": str(repo.top),
        "branch": branch,
        "clean": total == 0,
        "files": entries,
        "total": total,
        "truncated": total > len(entries) or run.truncated,
        "legend": "staged/unstaged: M modified, A added, D deleted, R renamed, ? untracked",
    }


TOOL = Tool(
    name="git_status",
    description=("Show a git repository's branch and its modified, staged and untracked files."),
    args_model=GitStatusArgs,
    risk=Risk.READ,
    handler=git_status,
)
