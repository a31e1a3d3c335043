"""run_command: the model's shell, off by default and always confirmed by the user.

Layers, outermost first: the settings switch (``policy.run_command_enabled``), the blacklist in
``command_policy`` (a speed bump only — see its docstring), the user's approval (the real gate,
done by the agent loop before the handler runs), then the run itself: the workspace as default
working directory, an environment without secrets, no stdin, a time limit, output capped at
100 KB per stream, and the whole process tree killed at the end (``process.py``).

With ``policy.sandbox_enabled`` the command also runs inside an OS sandbox, or not at all:

* Linux: bubblewrap (Debian package ``bubblewrap``): the whole file system read-only, the
  workspace writable, a private ``/tmp``, no network, its own PID namespace, all capabilities
  dropped (as root, bwrap would otherwise keep them and ``mount -o remount,rw /`` would undo the
  read-only view), ``~/.ssh``/``~/.gnupg``/``~/.aws`` hidden and the app's own folders read-only.
* macOS: ``sandbox-exec`` with a profile of the same intent (no network, writes only to the
  workspace and a private temp folder). Untested: this was written on Linux.
* Windows: no sandbox is available; with the setting on, commands are refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from tray_app.tool_errors import ToolErrorCode
from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.process import RunOutcome, run_captured
from tray_app.tools.result import ToolResult, failure
from tray_app.tools.sandbox.command_policy import check_command
from tray_app.tools.sandbox.policy import HOME_SECRET_DIRS

if TYPE_CHECKING:
    from tray_app.tools.sandbox.policy import SandboxPolicy

DEFAULT_TIMEOUT_MS = 30_000
MAX_TIMEOUT_MS = 120_000
MIN_TIMEOUT_MS = 100
OUTPUT_CAP = 100 * 1024

SECRET_NAME_PARTS = ("KEY", "SECRET", "TOKEN", "PASS", "CREDENTIAL", "AUTH", "COOKIE")
_URL_WITH_PASSWORD = re.compile(r"://[^/\s:@]+:[^/\s@]+@")
# The sandbox tools come from system folders only: a ``bwrap`` planted in ~/.local/bin (which the
# model can write to) must not be able to stand in for the real one.
SYSTEM_BIN_PATH = os.pathsep.join(["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"])
SANDBOX_TMP = "/tmp"  # noqa: S108 - inside bwrap this is a fresh private tmpfs

MACOS_PROFILE = """(version 1)
(allow default)
(deny network*)
(deny file-write*)
(allow file-write*
  (subpath (param "WORKSPACE"))
  (subpath (param "TMP"))
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper")
  (regex #"^/dev/tty") (regex #"^/dev/fd/"))
"""


class RunCommandArgs(ToolArgs):
    command: str = Field(description="The shell command to execute.")
    cwd: str | None = Field(
        default=None, description="Working directory for the command. Default: the workspace."
    )
    timeout: int | None = Field(
        default=None,
        description="Timeout in milliseconds. Default: 30000 (30s). Max: 120000 (2min).",
    )


def scrub_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment minus anything that looks like a secret (by name, or a URL password)."""
    return {
        name: value
        for name, value in environ.items()
        if not any(part in name.upper() for part in SECRET_NAME_PARTS)
        and not _URL_WITH_PASSWORD.search(value)
    }


def clamp_timeout(timeout_ms: int | None) -> int:
    if timeout_ms is None:
        return DEFAULT_TIMEOUT_MS
    return max(MIN_TIMEOUT_MS, min(MAX_TIMEOUT_MS, timeout_ms))


@dataclass
class SandboxPlan:
    """How a command will run: ``refusal`` set means it must not run at all."""

    sandboxed: bool
    refusal: str | None = None
    tool: str | None = None
    refusal_code: ToolErrorCode = "command_sandbox_unsupported"


def plan_sandbox(policy: SandboxPolicy) -> SandboxPlan:
    if not policy.sandbox_enabled:
        return SandboxPlan(sandboxed=False)
    if sys.platform.startswith("linux"):
        bwrap = shutil.which("bwrap", path=SYSTEM_BIN_PATH)
        if bwrap is None:
            return SandboxPlan(
                sandboxed=True,
                refusal="the sandbox is on but bubblewrap (bwrap) is not installed; install the "
                "'bubblewrap' package or turn the sandbox off in Settings",
                refusal_code="command_sandbox_no_bwrap",
            )
        return SandboxPlan(sandboxed=True, tool=bwrap)
    if sys.platform == "darwin":
        tool = "/usr/bin/sandbox-exec"
        if not Path(tool).exists():
            return SandboxPlan(
                sandboxed=True,
                refusal="the sandbox is on but sandbox-exec is missing",
                refusal_code="command_sandbox_missing",
            )
        return SandboxPlan(sandboxed=True, tool=tool)
    return SandboxPlan(
        sandboxed=True,
        refusal="the sandbox is on but this system has no command sandbox; turn the sandbox off "
        "in Settings to run commands unsandboxed",
    )


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def bwrap_argv(
    bwrap: str,
    command: str,
    *,
    workspace: Path,
    cwd: Path,
    status_fd: int,
    hidden: Sequence[Path] = (),
    read_only: Sequence[Path] = (),
) -> list[str]:
    """bubblewrap arguments. Later mounts win, so the masks come after the workspace bind."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--tmpfs", SANDBOX_TMP, "--bind", str(workspace), str(workspace)]
    if not _within(cwd, workspace):
        argv += ["--ro-bind", str(cwd), str(cwd)]
    for folder in read_only:
        argv += ["--ro-bind", str(folder), str(folder)]
    for folder in hidden:
        argv += ["--tmpfs", str(folder)]
    argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    argv += ["--json-status-fd", str(status_fd), "--setenv", "TMPDIR", SANDBOX_TMP]
    argv += ["--chdir", str(cwd), "--", "/bin/sh", "-c", command]
    return argv


def sandbox_masks(policy: SandboxPolicy) -> tuple[list[Path], list[Path]]:
    """Credential folders to hide and the app's own folders to keep read-only, where they exist.

    They matter when the workspace holds them (the default workspace is the home folder).
    """
    homes = {Path(policy.home), Path.home()}
    hidden = [h / name for h in homes for name in HOME_SECRET_DIRS]
    own = policy.protected_dirs  # the app's own folders, handed in by whoever made the policy
    return _real_dirs(hidden, policy.workspace), _real_dirs(own, policy.workspace)


def _real_dirs(folders: Sequence[Path], workspace: Path) -> list[Path]:
    """The real paths of the existing folders: a mask on a link would not cover its target
    (GNU stow makes ``~/.gnupg`` a link to ``~/dotfiles/gnupg``). A folder holding the
    workspace is left out: masking it would hide the workspace itself."""
    found: list[Path] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        real = Path(os.path.realpath(folder))
        if real not in found and not _within(Path(workspace), real):
            found.append(real)
    return found


def _bwrap_started(read_fd: int) -> bool:
    """bwrap writes ``{"child-pid": N}`` to its status fd once the sandbox is set up."""
    os.set_blocking(read_fd, False)
    data = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(read_fd, 4096):
            data += chunk
    return b'"child-pid"' in data


def run_command(ctx: ToolContext, args: RunCommandArgs) -> ToolResult:
    policy = ctx.policy
    if not policy.run_command_enabled:
        return failure(
            "run_command is disabled; the user can turn it on in Settings (Tools > run_command)",
            code="command_disabled",
        )
    blocked = check_command(args.command)
    if blocked:
        return failure(
            f"{blocked}. The command was not run.",
            code=blocked.code,
            params=blocked.params,
            blocked=True,
        )
    cwd = policy.resolve(args.cwd or str(policy.workspace), access="cwd")
    if not cwd.is_dir():
        return failure(
            f"cwd {cwd} is not a directory. The command was not run.",
            code="command_cwd_not_folder",
            params={"path": cwd},
        )
    plan = plan_sandbox(policy)
    if plan.refusal:
        return failure(
            f"{plan.refusal}. The command was not run.",
            code=plan.refusal_code,
            sandboxed=True,
        )
    if ctx.cancel.is_set():
        return failure(
            "cancelled before the command started",
            code="command_cancelled_before_start",
            cancelled=True,
        )
    timeout_ms = clamp_timeout(args.timeout)
    env = scrub_env(os.environ)
    workspace = Path(policy.workspace)
    with contextlib.ExitStack() as cleanup:
        status_fds: tuple[int, int] | None = None
        argv: list[str] | str
        if plan.tool and sys.platform.startswith("linux"):
            status_fds = os.pipe()
            for fd in status_fds:
                cleanup.callback(os.close, fd)
            hidden, read_only = sandbox_masks(policy)
            argv = bwrap_argv(
                plan.tool,
                args.command,
                workspace=workspace,
                cwd=cwd,
                status_fd=status_fds[1],
                hidden=hidden,
                read_only=read_only,
            )
        elif plan.tool:  # macOS
            private_tmp = os.path.realpath(
                cleanup.enter_context(tempfile.TemporaryDirectory(prefix="metona-cmd-"))
            )
            env["TMPDIR"] = private_tmp
            argv = [plan.tool, "-p", MACOS_PROFILE, "-D", f"WORKSPACE={workspace}"]
            argv += ["-D", f"TMP={private_tmp}", "/bin/sh", "-c", args.command]
        elif sys.platform == "win32":
            comspec = os.environ.get("COMSPEC", "cmd.exe")
            argv = f'"{comspec}" /d /s /c "{args.command}"'
        else:
            argv = ["/bin/sh", "-c", args.command]
        outcome = run_captured(
            argv,
            cwd=cwd,
            env=env,
            timeout=timeout_ms / 1000,
            cancel=ctx.cancel,
            cap=OUTPUT_CAP,
            pass_fds=status_fds[1:] if status_fds else (),
        )
        setup_failed = status_fds is not None and not _bwrap_started(status_fds[0])
    if setup_failed and not (outcome.cancelled or outcome.timed_out):
        detail = outcome.stderr.strip() or f"bwrap exited with code {outcome.returncode}"
        return failure(
            f"the sandbox could not be set up ({detail}). The command was not run.",
            code="command_sandbox_failed",
            params={"reason": detail},
            sandboxed=True,
        )
    return _result(outcome, timeout_ms=timeout_ms, sandboxed=plan.sandboxed, cwd=cwd)


def _result(outcome: RunOutcome, *, timeout_ms: int, sandboxed: bool, cwd: Path) -> ToolResult:
    code = outcome.returncode
    result: ToolResult = {
        "success": code == 0 and not outcome.timed_out and not outcome.cancelled,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "exitCode": code,
        "duration": outcome.duration_ms,
        "timed_out": outcome.timed_out,
        "cancelled": outcome.cancelled,
        "truncated_stdout": outcome.truncated_stdout,
        "truncated_stderr": outcome.truncated_stderr,
        "sandboxed": sandboxed,
        "cwd": str(cwd),
    }
    # ``code`` and ``params`` let the page say the same in the user's language.
    if outcome.timed_out:
        result["error"] = (
            f"the command timed out after {timeout_ms} ms (timeout is in milliseconds); "
            "it and every process it started were killed"
        )
        result.update(code="command_timed_out", params={"ms": timeout_ms})
    elif outcome.cancelled:
        result["error"] = "the command was cancelled; it and every process it started were killed"
        result["code"] = "command_cancelled"
    elif code != 0:
        result["error"] = f"the command exited with code {code}"
        result.update(code="command_exit", params={"code": code})
    return result


def preview_command(ctx: ToolContext, args: RunCommandArgs) -> ToolResult:
    """What the approval shows: the exact command, where it runs, and how it is confined."""
    policy = ctx.policy
    cwd = policy.resolve(args.cwd or str(policy.workspace), access="cwd")
    plan = plan_sandbox(policy)
    timeout_ms = clamp_timeout(args.timeout)
    blocked = check_command(args.command)
    how = (
        "sandboxed: only the workspace is writable, no network"
        if plan.sandboxed
        else "not sandboxed: it can do anything you can"
    )
    text = f"Run in {cwd} ({how}), time limit {timeout_ms / 1000:g} s:\n{args.command}"
    problems = [
        p
        for p in (
            None if policy.run_command_enabled else "run_command is disabled in Settings",
            blocked,
            plan.refusal,
            None if cwd.is_dir() else f"{cwd} is not a directory",
        )
        if p
    ]
    if problems:
        text += "\nIt will not run: " + "; ".join(problems)
    return {
        "kind": "command",
        "command": args.command,
        "cwd": str(cwd),
        "sandboxed": plan.sandboxed,
        "timeout_ms": timeout_ms,
        "blocked": blocked,
        # The card and the approval say why in the user's language (``tool_errors``).
        **({"blocked_code": blocked.code, "blocked_params": blocked.params} if blocked else {}),
        "enabled": bool(policy.run_command_enabled),
        "text": text,
    }


SHELL_TOOLS: list[Tool] = [
    Tool(
        name="run_command",
        description=(
            "Execute a shell command and return stdout/stderr. DANGEROUS: disabled by default, "
            "must be enabled in settings; the user approves every command. Runs in the workspace "
            "by default, without stdin; processes left running are killed when it ends."
        ),
        args_model=RunCommandArgs,
        risk=Risk.COMMAND,
        handler=run_command,
        preview=preview_command,
    )
]
