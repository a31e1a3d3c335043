"""What the run_command tests share: whether bubblewrap can sandbox here, running the tool
directly, and waiting for a condition without sleeping blindly."""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import threading
from typing import Any

from tray_app.tools.base import ToolContext
from tray_app.tools.builtin import shell
from tray_app.tools.builtin.shell import RunCommandArgs
from tray_app.tools.sandbox.policy import SandboxPolicy


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox a command on this machine, or None (asked once)."""
    if not sys.platform.startswith("linux"):
        return "bubblewrap is Linux only"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bwrap not found: install the Debian package 'bubblewrap'"
    probe = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    probe += ["--unshare-net", "--unshare-pid", "--cap-drop", "ALL", "--", "/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap cannot run here: {exc}"
    if done.returncode != 0:
        return f"bwrap cannot create a sandbox here: {done.stderr.strip()}"
    return None


def run_command(
    policy: SandboxPolicy,
    cancel: threading.Event | None = None,
    *,
    call_id: str | None = None,
    **args: Any,
) -> Any:
    """The run_command tool called as the toolbox would, with ``args`` as the model's."""
    ctx = ToolContext(policy=policy, cancel=cancel or threading.Event(), call_id=call_id)
    return shell.run_command(ctx, RunCommandArgs(**args))
