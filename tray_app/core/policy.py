"""The sandbox policy of a turn, made from the settings and the app's folders.

``tools/`` knows nothing of settings, paths or the environment: this is where what the policy
needs (allowed and blocked folders, the app's own folders to protect, the command switches) is
read and handed down.
"""

from __future__ import annotations

from pathlib import Path

from tray_app.base.paths import AppPaths
from tray_app.store.settings import Settings
from tray_app.tools.sandbox.policy import SandboxPolicy


def sandbox_policy(
    settings: Settings, paths: AppPaths, *, workspace: str | Path | None = None
) -> SandboxPolicy:
    return SandboxPolicy(
        allowed_dirs=settings.allowed_dirs,
        workspace=workspace,
        blocked_dirs=settings.blocked_dirs,
        protected_dirs=paths.protected_dirs(),
        run_command_enabled=settings.run_command_enabled,
        sandbox_enabled=settings.sandbox_enabled,
        web_allowed_hosts=settings.web_allowed_hosts,
    )
