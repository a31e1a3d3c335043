"""The sandbox policy is made in core from the settings and the app's folders; the tools get
what they need handed in and read neither settings nor the environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tray_app.base.errors import SandboxViolation
from tray_app.base.paths import AppPaths
from tray_app.core.policy import sandbox_policy
from tray_app.store.settings import Settings
from tray_app.tools.builtin.shell import sandbox_masks
from tray_app.tools.sandbox.policy import SandboxPolicy


def refused(policy: SandboxPolicy, raw: str, access: str = "read") -> str:
    with pytest.raises(SandboxViolation) as info:
        policy.resolve(raw, access=access)  # type: ignore[arg-type]
    return str(info.value)


def test_the_policy_protects_the_app_folders_and_takes_the_switches(
    tmp_path: Path, metona_home: Path
) -> None:
    paths = AppPaths.under(metona_home)
    settings = Settings(
        allowed_dirs=[str(metona_home.parent)],
        blocked_dirs=[str(tmp_path / "nope 禁止")],
        run_command_enabled=True,
        sandbox_enabled=True,
    )
    policy = sandbox_policy(settings, paths, workspace=str(metona_home.parent))
    assert policy.run_command_enabled and policy.sandbox_enabled
    assert policy.workspace == Path(os.path.realpath(metona_home.parent))
    assert "app's own folder" in refused(policy, str(paths.settings_file), "write")
    assert "app's own folder" in refused(policy, str(paths.journal_dir / "x"), "delete")
    assert "blocked" in refused(policy, str(tmp_path / "nope 禁止" / "f"), "read")


def test_the_command_sandbox_masks_only_the_folders_it_was_given(
    tmp_path: Path, metona_home: Path
) -> None:
    """METONA_HOME points at real app folders, but a policy made without them keeps them
    writable in the sandbox: shell.py no longer looks the app's folders up by itself."""
    paths = AppPaths.under(metona_home)
    paths.ensure()
    workspace = metona_home.parent
    bare = SandboxPolicy(allowed_dirs=[workspace], workspace=workspace, home=tmp_path)
    assert sandbox_masks(bare)[1] == []
    given = SandboxPolicy(
        allowed_dirs=[workspace],
        workspace=workspace,
        home=tmp_path,
        protected_dirs=paths.protected_dirs(),
    )
    masked = sandbox_masks(given)[1]
    assert masked and all(Path(metona_home).resolve() in [m, *m.parents] for m in masked)
