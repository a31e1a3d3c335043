"""What the tools that change files share (write_file, create_directory, edit_file,
move_file): the temporary-file names, making missing parent folders, and failure sentences.

Each tool plans first (resolve, look at what is there, refuse early) and the plan is shared with
the approval preview, so the user is never asked about a call that would fail anyway. The undo
journal records before anything changes (when it cannot, the call is refused, or with the user's
leave goes ahead and its result says ``"undo": "unavailable"``) and is committed only after
success. A result is true to the disk: success only when the change is made, and a failure says
what, if anything, was changed on the way.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from tray_app.base.errors import SandboxViolation
from tray_app.tools.fs.fs_safe import describe_os_error, os_error_code
from tray_app.tools.fs.opened import opened
from tray_app.tools.result import ToolResult, failure
from tray_app.tools.sandbox.policy import SandboxPolicy

TEMP_PREFIX = ".metona-"
TEMP_SUFFIX = ".tmp"


# ---- write_file ------------------------------------------------------------------------------


def change_failed(
    exc: OSError | SandboxViolation, target: Path, what: str, created: list[Path]
) -> ToolResult:
    """The failure of a write that may have made folders on the way: they are removed, and any
    that stay are named, so the result is true."""
    left = _left_behind(created)
    if isinstance(exc, OSError):
        code, params = os_error_code(exc, target, what=what)
        why = describe_os_error(exc, target, what=what)
    else:
        code, params, why = exc.code, dict(exc.params), str(exc)
    if not left:
        return failure(why, code=code, params=params)
    folders = ", ".join(left)
    return failure(
        f"{why} (the folder {folders} was created and is still there)",
        code="folders_left_behind",
        params={"path": target, "folders": folders},
    )


def _left_behind(created: list[Path]) -> list[str]:
    """Remove the folders a failed call created; the ones that stay."""
    left = []
    for folder in reversed(created):
        try:
            with opened(folder) as here:
                os.rmdir(here.name, dir_fd=here.dir_fd)
        except FileNotFoundError:
            continue
        except OSError:
            left.append(str(folder))
    return left


def make_parents(
    policy: SandboxPolicy, folder: Path, created: list[Path] | None = None
) -> list[Path]:
    """Create the missing folders down to ``folder``, each checked by the policy first.

    ``created`` (if given) collects them as they are made, so a caller still knows them when
    a later one fails.
    """
    missing: list[Path] = []
    probe = folder
    while not os.path.lexists(probe) and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    if not probe.is_dir() or probe.is_symlink():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(probe))
    created = [] if created is None else created
    for path in reversed(missing):
        policy.resolve(str(path), access="write")
        try:
            with opened(path) as here:  # made in the checked folder, never through a link
                os.mkdir(here.name, dir_fd=here.dir_fd)
        except FileExistsError:
            if not path.is_dir() or path.is_symlink():
                raise
            continue
        created.append(path)
    return created


# ---- create_directory ------------------------------------------------------------------------


# ---- delete_file -----------------------------------------------------------------------------
