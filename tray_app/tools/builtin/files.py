"""The file tools, each declared in its own module (args model, handler, preview and ``TOOL``
together): the six seed tools in their original order, then the ones added after them.

This module only lists them, their answers made printable (``tools.builtin.printable``). Every path
goes through ``sandbox.SandboxPolicy.resolve``. A chat does not import it: its tools come from
the generated manifest and each loads at its first call (``tools.lazy``).
"""

from __future__ import annotations

from tray_app.tools.base import Tool
from tray_app.tools.builtin import (
    allowed_dirs,
    create_directory,
    delete_file,
    dir_tree,
    edit_file,
    file_info,
    list_directory,
    move_file,
    read_file,
    read_many,
    search_files,
    write_file,
)
from tray_app.tools.builtin.printable import wrapped

#: One module per tool, in the order the model sees them.
_MODULES = (
    read_file,
    write_file,
    list_directory,
    search_files,
    create_directory,
    delete_file,
    edit_file,
    move_file,
    read_many,
    dir_tree,
    file_info,
    allowed_dirs,
)
FILE_TOOLS: list[Tool] = [wrapped(module.TOOL) for module in _MODULES]
