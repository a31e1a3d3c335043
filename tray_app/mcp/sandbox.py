"""Containment for stdio servers: the command line a server is started with.

With the sandbox switch on (Linux, bubblewrap installed) a server runs like ``run_command``:
the whole file system read-only, fresh ``/dev``, ``/proc`` and ``/tmp``, its own ``cwd`` the
only writable folder, no network unless its config says ``"network": true`` (the default, as
most servers exist to reach something), and it dies with the app. Elsewhere the command runs
as configured, in its own process group so that quitting ends its whole tree.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tray_app.mcp.config import ServerConfig

SYSTEM_BIN_PATH = "/usr/bin:/bin:/usr/local/bin"


def bwrap_path() -> str | None:
    """bubblewrap from a system folder only (one in ~/.local/bin could be planted)."""
    if not sys.platform.startswith("linux"):
        return None
    return shutil.which("bwrap", path=SYSTEM_BIN_PATH)


def contained_command(config: ServerConfig, *, enabled: bool) -> tuple[str, list[str]]:
    """``(command, args)`` to start; under bubblewrap when ``enabled`` and available.

    Raises RuntimeError when the sandbox is on but bubblewrap is missing: a server is never
    started outside the sandbox the user asked for.
    """
    command = config.command or ""
    if not enabled:
        return command, list(config.args)
    bwrap = bwrap_path()
    if bwrap is None:
        raise RuntimeError(
            "the sandbox is on but bubblewrap (bwrap) is not available, so the server "
            "was not started; install bubblewrap or turn the sandbox off"
        )
    argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]  # noqa: S108
    if config.cwd:
        folder = str(Path(config.cwd).expanduser())
        argv += ["--bind", folder, folder, "--chdir", folder]
    if not config.network:
        argv.append("--unshare-net")
    argv += ["--unshare-pid", "--die-with-parent", "--new-session", "--", command, *config.args]
    return bwrap, argv
