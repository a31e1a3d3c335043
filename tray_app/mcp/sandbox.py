"""Containment for stdio servers: the command line a server is started with.

With the sandbox switch on (Linux, bubblewrap installed) a server runs like ``run_command``:
the whole file system read-only, fresh ``/dev``, ``/proc`` and ``/tmp``, its own ``cwd`` and a
private folder of its own under the app's cache folder the only writable places, no network
unless its config says ``"network": true`` (the default, as most servers exist to reach
something), and it dies with the app. The private folder is where ``npx``/``uvx`` keep their
caches (``npm_config_cache``, ``XDG_CACHE_HOME``): with ``~/.npm`` read-only, ``npx -y`` could
not unpack the package it runs. Elsewhere the command runs
as configured, in its own process group so that quitting ends its whole tree.
"""

from __future__ import annotations

import hashlib
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


def private_folder(root: Path, name: str) -> Path:
    """The server's own writable folder under ``root`` (made, user-only): one per server name,
    readable on disk, and never shared by two names (``a b`` and ``a_b``)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:64]
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    folder = root / f"{safe}-{digest}"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def private_env(folder: Path) -> dict[str, str]:
    """Where package runners put their caches, pointed into the server's private folder."""
    return {"npm_config_cache": str(folder / "npm"), "XDG_CACHE_HOME": str(folder / "cache")}


def contained_command(
    config: ServerConfig, *, enabled: bool, private: Path | None = None
) -> tuple[str, list[str]]:
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
    if private is not None:
        argv += ["--bind", str(private), str(private)]
    if config.cwd:
        folder = str(Path(config.cwd).expanduser())
        argv += ["--bind", folder, folder, "--chdir", folder]
    if not config.network:
        argv.append("--unshare-net")
    argv += ["--unshare-pid", "--die-with-parent", "--new-session", "--", command, *config.args]
    return bwrap, argv
