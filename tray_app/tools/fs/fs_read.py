"""What the folder-reading tools share (list_directory, search_files, directory_tree):
resolving the folder, and hiding what the model must not see."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from tray_app.tools.fs.fs_safe import (
    kind_of,
    os_failure,
)
from tray_app.tools.fs.fs_walk import Entry
from tray_app.tools.fs.walk_filter import HiddenFromModel
from tray_app.tools.result import ToolResult, failure
from tray_app.tools.sandbox.policy import Access, SandboxPolicy


def _hidden_from_model(policy: SandboxPolicy, root: Path | None = None) -> Callable[[Entry], bool]:
    """Walk filter: secrets and blocked folders are left out of listings and searches."""
    return HiddenFromModel(policy, root)


def _folder(policy: SandboxPolicy, raw: str, access: Access) -> Path | ToolResult:
    """The folder to walk (search also takes a single file), or a failure saying why not."""
    path = policy.resolve(raw, access=access)
    try:
        mode = os.lstat(path).st_mode
    except OSError as exc:
        return os_failure(exc, path, what="folder")
    if stat.S_ISDIR(mode) or (access == "search" and stat.S_ISREG(mode)):
        return path
    if stat.S_ISREG(mode):
        return failure(
            f"{path} is a file, not a folder; use read_file to read it",
            code="not_a_folder_file",
            params={"path": path},
        )
    return failure(
        f"{path} is a {kind_of(mode)}, not a folder", code="not_a_folder", params={"path": path}
    )
