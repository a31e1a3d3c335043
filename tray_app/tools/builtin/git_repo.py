"""Finding the repository a git tool works in, and keeping it inside the allowed folders.

``path`` (default: the workspace) goes through the sandbox like any path; then git says where
the repository's top folder and its git folder really are, and both must pass the sandbox too:
a ``.git`` file whose ``gitdir:`` points outside the allowed folders, ``core.worktree`` in its
config, or a folder inside a repository rooted above the allowed folders is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tray_app.tools.base import ToolContext
from tray_app.tools.builtin.git_run import GitMissing, GitRun, GitRunner
from tray_app.tools.result import ToolResult, failure

REPO_HELP = (
    "The repository's folder (or a folder inside it); default: the workspace. "
    "It must be inside the allowed folders."
)


@dataclass(frozen=True)
class Repo:
    """A repository that passed the checks: its top folder and git folder (real paths)."""

    top: Path
    git_dir: Path


def open_repo(
    ctx: ToolContext, path: str | None, runner: GitRunner, *, access: Literal["read", "write"]
) -> Repo | ToolResult:
    """The repository at ``path`` checked against the sandbox, or the failure to answer."""
    policy = ctx.policy
    folder = policy.resolve(path or str(policy.workspace), access="read")
    if not folder.is_dir():
        return failure(
            f"{folder} is not a folder", code="git_not_repository", params={"path": folder}
        )
    runner.cwd = folder
    found = runner.run(["rev-parse", "--show-toplevel", "--absolute-git-dir"])
    lines = found.stdout.splitlines()
    if found.timed_out or found.cancelled:
        return git_failed(found)
    if not found.ok or len(lines) != 2:
        return failure(
            f"{folder} is not inside a git repository ({found.reason()})",
            code="git_not_repository",
            params={"path": folder},
        )
    top = policy.resolve(lines[0], access=access)
    git_dir = policy.resolve(lines[1], access="read")
    runner.cwd = top
    return Repo(top=top, git_dir=git_dir)


def repo_paths(ctx: ToolContext, repo: Repo, files: list[str] | None, access: str) -> list[str]:
    """``files`` (relative to the repository, or absolute) through the sandbox, as paths
    relative to its top folder; ``SandboxViolation`` for one outside it."""
    from tray_app.base.errors import SandboxViolation

    out = []
    for name in files or ():
        joined = name if os.path.isabs(name) else os.path.join(repo.top, name)
        real = ctx.policy.resolve(joined, access="write" if access == "write" else "read")
        try:
            relative = real.relative_to(repo.top)
        except ValueError:
            raise SandboxViolation(
                f"{real} is not inside the repository {repo.top}",
                code="git_path_outside_repo",
                path=str(real),
                repo=str(repo.top),
            ) from None
        out.append(str(relative) if str(relative) != "." else ".")
    return out


def git_missing(exc: GitMissing) -> ToolResult:
    return failure(
        f"{exc}; install git to use the git tools",
        code="git_missing",
    )


def git_failed(run: GitRun) -> ToolResult:
    """git ran and refused or failed: its own words for the model."""
    if run.timed_out:
        return failure(run.reason(), code="git_timed_out")
    return failure(
        f"git failed: {run.reason()}", code="git_failed", params={"reason": run.reason()}
    )
