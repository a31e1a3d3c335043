"""git_diff: what changed in a repository's files, unstaged or staged, as a unified diff."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from tray_app.tools.sandbox.policy import SandboxPolicy

DEFAULT_CHARS = 20_000
MAX_CHARS = 200_000
MAX_STAT_FILES = 500
#: Never a program the repository names: no external diff, no text conversion, no colours.
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=all")


class GitDiffArgs(ToolArgs):
    path: str | None = Field(default=None, description=REPO_HELP)
    staged: bool = Field(
        default=False,
        description="true: the changes staged for the next commit; false: the unstaged ones.",
    )
    files: list[str] | None = Field(
        default=None, description="Only these files (relative to the repository)."
    )
    max_chars: int | None = Field(
        default=None,
        description=f"The most characters of diff to return (default {DEFAULT_CHARS}).",
    )


def parse_numstat(text: str, limit: int | None = MAX_STAT_FILES) -> list[dict[str, Any]]:
    """``git diff --numstat -z``: added and deleted lines per file (None for binary files)."""
    fields = text.split("\0")
    out: list[dict[str, Any]] = []
    index = 0
    while index < len(fields) and (limit is None or len(out) < limit):
        head = fields[index]
        index += 1
        parts = head.split("\t", 2)
        if len(parts) != 3:
            continue
        added, deleted, name = parts
        entry: dict[str, Any] = {
            "added": int(added) if added.isdigit() else None,
            "deleted": int(deleted) if deleted.isdigit() else None,
        }
        if name == "" and index + 1 < len(fields):  # a rename: old and new name follow
            entry["from"], name = fields[index], fields[index + 1]
            index += 2
        entry["path"] = name
        out.append(entry)
    return out


def secret_paths(policy: SandboxPolicy, top: Path, files: list[dict[str, Any]]) -> list[str]:
    """The changed files whose content the file tools would refuse to read (a secret's name,
    a blocked folder), old names of renames included: their diff is not shown either."""
    found: list[str] = []
    for entry in files:
        for name in (entry.get("from"), entry["path"]):
            if not name or name in found:
                continue
            path = top / name
            if policy.is_secret_entry(path) or policy.is_blocked(path):
                found.append(name)
    return found


def git_diff(ctx: ToolContext, args: GitDiffArgs) -> ToolResult:
    try:
        runner = GitRunner(ctx.policy.workspace, cancel=ctx.cancel)
    except GitMissing as exc:
        return git_missing(exc)
    limit = max(1000, min(MAX_CHARS, args.max_chars or DEFAULT_CHARS))
    with runner:
        repo = open_repo(ctx, args.path, runner, access="read")
        if isinstance(repo, dict):
            return repo
        paths = repo_paths(ctx, repo, args.files, "read")
        which = ["--cached"] if args.staged else []
        stat = runner.run(["diff", *which, *DIFF_FLAGS, "--numstat", "-z"], paths=paths)
        if not stat.ok:
            return git_failed(stat)
        files = parse_numstat(stat.stdout, limit=None)
        withheld = secret_paths(ctx.policy, repo.top, files)
        patch = runner.run(
            ["diff", *which, *DIFF_FLAGS, "--no-renames"], paths=paths, exclude=withheld
        )
    if not patch.ok:
        return git_failed(patch)
    extra: dict[str, Any] = {}
    if withheld:
        extra["withheld"] = withheld
        extra["withheld_note"] = (
            "the changes of these files are not shown: they hold secrets (keys, .env) or are "
            "in a blocked folder, which the tools do not read"
        )
    total = len(files)
    files = files[:MAX_STAT_FILES]
    text = patch.stdout
    cut = len(text) > limit or patch.truncated
    return {
        "success": True,
        "repository": str(repo.top),
        "staged": args.staged,
        "files": files,
        "added": sum(f["added"] or 0 for f in files),
        "deleted": sum(f["deleted"] or 0 for f in files),
        "diff": text[:limit],
        "truncated": cut,
        **({"files_total": total} if total > len(files) else {}),
        **extra,
        **({"note": f"the diff was cut at {limit} characters; ask for fewer files"} if cut else {}),
    }


TOOL = Tool(
    name="git_diff",
    description=(
        "Show the changes in a git repository as a unified diff: the unstaged changes, or the "
        "staged ones with staged=true, optionally only some files."
    ),
    args_model=GitDiffArgs,
    risk=Risk.READ,
    handler=git_diff,
)
