"""git_commit: record staged changes (or the given files) as a commit, asked like a write.

The approval shows the message and what the commit would hold (files, lines added and
deleted). The repository's hooks do not run (``core.hooksPath`` at an empty folder and
``--no-verify``), nothing is signed, no editor opens: the message goes in from a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from pydantic import Field

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.git_diff import DIFF_FLAGS, parse_numstat
from tray_app.tools.builtin.git_repo import (
    REPO_HELP,
    Repo,
    git_failed,
    git_missing,
    open_repo,
    repo_paths,
)
from tray_app.tools.builtin.git_run import GitMissing, GitRunner, identity_file
from tray_app.tools.result import ToolResult, failure
from tray_app.tools.sandbox.binding import changed_failure, file_binding

MAX_MESSAGE = 10_000
PREVIEW_FILES = 50
COUNT_BYTES = 4 * 1024 * 1024
BIND_FILES = 500


class GitCommitArgs(ToolArgs):
    message: str = Field(description="The commit message: a summary line, then details.")
    files: list[str] | None = Field(
        default=None,
        description=(
            "Commit exactly these files as they are now (relative to the repository; new files "
            "are added). Default: commit what is already staged."
        ),
    )
    path: str | None = Field(default=None, description=REPO_HELP)


def _bad_message(message: str) -> ToolResult | None:
    if not message.strip():
        return failure("the commit message is empty", code="git_empty_message")
    if len(message) > MAX_MESSAGE:
        return failure(
            f"the commit message is longer than {MAX_MESSAGE} characters",
            code="git_message_too_long",
            params={"limit": MAX_MESSAGE},
        )
    return None


def _what_commits(runner: GitRunner, paths: list[str]) -> list[dict[str, Any]] | ToolResult:
    """The files the commit would hold with their line counts: the staged changes, or the given
    files' changes against HEAD (a new file counted whole)."""
    if not paths:
        run = runner.run(["diff", "--cached", *DIFF_FLAGS, "--numstat", "-z"], paths=[])
        return parse_numstat(run.stdout) if run.ok else git_failed(run)
    head = runner.run(["rev-parse", "--verify", "--quiet", "HEAD"])
    base = head.stdout.strip() if head.ok else None
    entries: list[dict[str, Any]] = []
    if base:
        run = runner.run(["diff", base, *DIFF_FLAGS, "--numstat", "-z"], paths=paths)
        if not run.ok:
            return git_failed(run)
        entries = parse_numstat(run.stdout)
    new = runner.run(["ls-files", "--others", "--exclude-standard", "-z"], paths=paths)
    if not base:  # no commit yet: every tracked or new file is new
        new = runner.run(
            ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], paths=paths
        )
    known = {entry["path"] for entry in entries}
    for name in new.stdout.split("\0") if new.ok else ():
        if name and name not in known:
            counted = count_lines(runner.cwd / name) if len(entries) < PREVIEW_FILES else None
            entries.append({"path": name, "added": counted, "deleted": 0, "new": True})
    return entries


def commit_binding(runner: GitRunner, repo: Repo, files: list[dict[str, Any]]) -> dict[str, Any]:
    """What the approval is bound to: HEAD, and what would be committed: the staged blobs
    (``diff --cached --raw``), or each named file's identity and bytes (``file_binding``)."""
    head = runner.run(["rev-parse", "--verify", "--quiet", "HEAD"])
    staged = runner.run(["diff", "--cached", *DIFF_FLAGS, "--raw", "--no-abbrev", "-z"], paths=[])
    digest = hashlib.sha256(staged.stdout.encode("utf-8", "surrogateescape"))
    for entry in sorted(files, key=lambda f: str(f["path"]))[:BIND_FILES]:
        facts = file_binding(repo.top / entry["path"])
        digest.update(json.dumps([entry["path"], facts], sort_keys=True).encode())
    return {
        "repository": str(repo.top),
        "head": head.stdout.strip() if head.ok else None,
        "files": len(files),
        "sha256": digest.hexdigest(),
    }


def count_lines(path: Path) -> int | None:
    """A new file's lines as git will count them, reading at most ``COUNT_BYTES``: None for a
    binary, larger or unreadable file; a link is one line (git stores where it points)."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return 1
        if not stat.S_ISREG(info.st_mode) or info.st_size > COUNT_BYTES:
            return None
        with open(path, "rb") as handle:
            data = handle.read(COUNT_BYTES)
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _plan(
    ctx: ToolContext, args: GitCommitArgs, runner: GitRunner
) -> tuple[Repo, list[str]] | ToolResult:
    bad = _bad_message(args.message)
    if bad is not None:
        return bad
    repo = open_repo(ctx, args.path, runner, access="write")
    if isinstance(repo, dict):
        return repo
    return repo, repo_paths(ctx, repo, args.files, "write")


def git_commit(ctx: ToolContext, args: GitCommitArgs) -> ToolResult:
    try:
        runner = GitRunner(ctx.policy.workspace, cancel=ctx.cancel, read_only=False)
    except GitMissing as exc:
        return git_missing(exc)
    with runner:
        plan = _plan(ctx, args, runner)
        if isinstance(plan, dict):
            return plan
        repo, paths = plan
        if ctx.bound is not None:  # what is there now is what the person approved
            files = _what_commits(runner, paths)
            if isinstance(files, dict):
                return files
            if commit_binding(runner, repo, files) != dict(ctx.bound):
                return changed_failure(repo.top)
        scratch = runner.scratch
        runner.global_config = identity_file(scratch)
        message_file = os.path.join(scratch, "message.txt")
        with open(message_file, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(args.message)
        if paths:
            added = runner.run(["add", "--all"], paths=paths)
            if not added.ok:
                return git_failed(added)
        commit = ["commit", "--no-verify", "--no-gpg-sign", "--cleanup=whitespace"]
        commit += [f"--file={message_file}", "--no-edit", "--quiet"]
        if not paths and not runner.run(["diff", "--cached", "--quiet"], paths=[]).returncode:
            return failure(
                "nothing is staged to commit: name the files to commit, or stage them first",
                code="git_nothing_to_commit",
            )
        run = runner.run(commit, paths=paths or None)
        if not run.ok and "Please tell me who you are" in run.stderr:
            return failure(
                "git does not know who the author is: the user should set it once with "
                '`git config --global user.name "Name"` and '
                '`git config --global user.email "email"`; nothing was committed',
                code="git_no_identity",
            )
        if not run.ok:
            return git_failed(run)
        head = runner.run(["log", "-1", "--no-color", "--format=%H%x1f%s", "HEAD"], paths=[])
        stat = runner.run(["show", *DIFF_FLAGS, "--numstat", "-z", "--format=", "HEAD"], paths=[])
    sha, _, subject = head.stdout.strip().partition("\x1f")
    files = parse_numstat(stat.stdout) if stat.ok else []
    return {
        "success": True,
        "repository": str(repo.top),
        "commit": sha,
        "subject": subject,
        "files": files,
        "added": sum(f["added"] or 0 for f in files),
        "deleted": sum(f["deleted"] or 0 for f in files),
        "hooks": "not run",
    }


def commit_preview(ctx: ToolContext, args: GitCommitArgs) -> dict[str, Any] | ToolResult:
    """What the approval shows: where, the message, and the files with their line counts."""
    try:
        runner = GitRunner(ctx.policy.workspace, cancel=ctx.cancel)
    except GitMissing as exc:
        return git_missing(exc)
    with runner:
        plan = _plan(ctx, args, runner)
        if isinstance(plan, dict):
            return plan
        repo, paths = plan
        branch = runner.run(["symbolic-ref", "--quiet", "--short", "HEAD"])
        files = _what_commits(runner, paths)
        if isinstance(files, dict):
            return files
        binding = commit_binding(runner, repo, files)
    for entry in files:  # a key or .env about to be committed: the card warns
        if ctx.policy.is_secret_entry(repo.top / entry["path"]):
            entry["secret"] = True
    added = sum(f.get("added") or 0 for f in files)
    deleted = sum(f.get("deleted") or 0 for f in files)
    lines = [
        f"{f['path']}  +{f.get('added') or 0} -{f.get('deleted') or 0}"
        + ("  (looks like a secret)" if f.get("secret") else "")
        for f in files
    ]
    shown = lines[:PREVIEW_FILES] + (
        [f"… {len(lines) - PREVIEW_FILES} more"] if len(lines) > PREVIEW_FILES else []
    )
    where = branch.stdout.strip() if branch.ok else "(no branch)"
    text = f"Commit in {repo.top} on {where}: {len(files)} files, +{added} -{deleted}\n"
    text += args.message.strip() + "\n\n" + "\n".join(shown)
    return {
        "kind": "git_commit",
        "path": str(repo.top),
        "branch": where,
        "message": args.message,
        "files": files[:PREVIEW_FILES],
        "file_count": len(files),
        "added": added,
        "deleted": deleted,
        "text": text,
        "binding": binding,
    }


TOOL = Tool(
    name="git_commit",
    description=(
        "Commit in a git repository: what is staged, or exactly the given files (new files are "
        "added). The user approves the message and the files; the repository's hooks do not run."
    ),
    args_model=GitCommitArgs,
    risk=Risk.WRITE,
    handler=git_commit,
    preview=commit_preview,
)
