"""git_log: a repository's recent commits, newest first, a bounded number of them."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.git_repo import (
    REPO_HELP,
    git_failed,
    git_missing,
    open_repo,
    repo_paths,
)
from tray_app.tools.builtin.git_run import GitMissing, GitRunner
from tray_app.tools.result import ToolResult

DEFAULT_COUNT = 20
MAX_COUNT = 200
MAX_SUBJECT = 500
_FORMAT = "--format=%H%x1f%an%x1f%ae%x1f%aI%x1f%s"


class GitLogArgs(ToolArgs):
    path: str | None = Field(default=None, description=REPO_HELP)
    max_count: int | None = Field(
        default=None,
        description=f"How many commits, newest first (default {DEFAULT_COUNT}, max {MAX_COUNT}).",
    )
    file: str | None = Field(default=None, description="Only commits that changed this file.")


def parse_log(text: str) -> list[dict[str, Any]]:
    commits = []
    for record in text.split("\0"):
        parts = record.strip("\n").split("\x1f")
        if len(parts) != 5:
            continue
        sha, name, email, date, subject = parts
        commits.append(
            {
                "commit": sha,
                "author": name,
                "email": email,
                "date": date,
                "subject": subject[:MAX_SUBJECT],
            }
        )
    return commits


def git_log(ctx: ToolContext, args: GitLogArgs) -> ToolResult:
    try:
        runner = GitRunner(ctx.policy.workspace, cancel=ctx.cancel)
    except GitMissing as exc:
        return git_missing(exc)
    count = max(1, min(MAX_COUNT, args.max_count or DEFAULT_COUNT))
    with runner:
        repo = open_repo(ctx, args.path, runner, access="read")
        if isinstance(repo, dict):
            return repo
        paths = repo_paths(ctx, repo, [args.file] if args.file else None, "read")
        head = runner.run(["rev-parse", "--verify", "--quiet", "HEAD"])
        if not head.ok:
            return {"success": True, "repository": str(repo.top), "commits": [], "more": False}
        run = runner.run(
            ["log", f"--max-count={count + 1}", "-z", "--no-color", _FORMAT, "HEAD"], paths=paths
        )
    if not run.ok:
        return git_failed(run)
    commits = parse_log(run.stdout)
    return {
        "success": True,
        "repository": str(repo.top),
        "commits": commits[:count],
        "more": len(commits) > count,
    }


TOOL = Tool(
    name="git_log",
    description="List a git repository's recent commits, newest first: hash, author, date, title.",
    args_model=GitLogArgs,
    risk=Risk.READ,
    handler=git_log,
)
