"""A private folder next to an entry, for handing it to code that only takes a path.

The trash (send2trash) needs a path string, and a string is looked up again from the file
system's root: a folder on the way swapped for a link would make it trash an outside entry.
So the entry is first moved, through its opened folder, into a new folder with a random name
made beside it (mode 0700), and the trash gets that folder's path. Swapped or not, the string
can only lead to the entry just moved there: an outside folder holds no folder of that name
unless whoever swapped also made one, in which case only their own entry is affected. When the
block ends, whatever is still staged goes back to its place and the staging folder is removed.

What the trash records as the original place is the staging folder's path: "Restore" in the
system's trash window puts the entry into a folder named ``.metona-trash-…``; the app's own
Undo puts it back where it was. Without descriptors (Windows) nothing is staged.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from tray_app.tools.fs.opened import STEP_FLAGS, Opened, named

STAGING_PREFIX = ".metona-trash-"


@contextmanager
def staged(here: Opened) -> Iterator[Opened]:
    """``here`` moved into a fresh private folder beside it, as an ``Opened`` there whose
    ``path`` is the staged path; moved back at the end if it is still there."""
    if here.dir_fd is None:
        yield here
        return
    folder = f"{STAGING_PREFIX}{secrets.token_hex(8)}"
    os.mkdir(folder, 0o700, dir_fd=here.dir_fd)
    try:
        stage_fd = os.open(folder, STEP_FLAGS, dir_fd=here.dir_fd)
    except BaseException:
        os.rmdir(folder, dir_fd=here.dir_fd)
        raise
    try:
        try:
            os.rename(here.name, here.name, src_dir_fd=here.dir_fd, dst_dir_fd=stage_fd)
        except OSError as exc:
            raise named(exc, here.path) from exc
        try:
            yield Opened(here.path.parent / folder / here.name, stage_fd, here.name)
        finally:
            with suppress(FileNotFoundError):
                os.stat(here.name, dir_fd=stage_fd, follow_symlinks=False)
                os.rename(here.name, here.name, src_dir_fd=stage_fd, dst_dir_fd=here.dir_fd)
    finally:
        os.close(stage_fd)
        with suppress(OSError):  # left only when something could not go back (named there)
            os.rmdir(folder, dir_fd=here.dir_fd)
