"""The git tools, each declared in its own module, in the order the model sees them; their
answers made printable like the file tools' (``tools.builtin.printable``)."""

from __future__ import annotations

from tray_app.tools.base import Tool
from tray_app.tools.builtin import git_commit, git_diff, git_log, git_status
from tray_app.tools.builtin.printable import wrapped

GIT_TOOLS: list[Tool] = [
    wrapped(module.TOOL) for module in (git_status, git_diff, git_log, git_commit)
]
