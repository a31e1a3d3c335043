"""A child process for the journal tests: runs file tools (or raw journal steps) on a journal
folder that the parent has made full, read-only or shared, and prints what happened as JSON.

    python -m tests.tools.journal_child '{"journal": ..., "work": ..., "ops": [...], ...}'

``fill``: first fill the journal's file system to the last byte (a tmpfs the parent mounted).
``optional``: the user's "allow changes without undo" setting.
Each op is ``["tool", {args}]`` through ``Toolbox.execute`` (the agent's path), or
``["write-then-die", path]``: record, write the file, and exit before the commit (a kill -9).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
from pathlib import Path
from typing import Any

from tray_app.base.errors import StoreError
from tray_app.tools.builtin import delete_file as delete_module
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.journal.journal import Journal
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox


def fill(folder: Path) -> int:
    """Write into ``folder`` until its file system has no byte left; returns bytes written."""
    total = 0
    with open(folder / "filler.bin", "wb", buffering=0) as out:
        for size in (1 << 20, 1 << 12, 1):
            while True:
                try:
                    total += out.write(b"\0" * size)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    return total


def no_trash(path: str) -> None:
    raise OSError("no trash in this test: delete instead")


def main(config: dict[str, Any]) -> dict[str, Any]:
    delete_module.trash = no_trash  # nothing may land in the real user's trash
    root, work = Path(config["journal"]), Path(config["work"])
    journal = Journal(root)
    filled = fill(root) if config.get("fill") else 0
    policy = SandboxPolicy(allowed_dirs=[work], workspace=work, home=work.parent / "home")
    box = Toolbox(
        policy,
        registry=ToolRegistry(FILE_TOOLS),
        journal=journal,
        undo_optional=bool(config.get("optional")),
    )
    results: list[dict[str, Any]] = []
    for number, (tool, args) in enumerate(config["ops"]):
        if tool == "write-then-die":
            target = Path(args)
            journal.record(call_id=f"die{number}", tool="write_file", path=target)
            target.write_text("written, then killed before the commit ✂️", encoding="utf-8")
            sys.stdout.flush()
            os._exit(0)
        results.append(box.execute(tool, args, call_id=f"call{number}"))
    try:
        listed: Any = journal.entries()
    except StoreError as exc:
        listed = {"error": str(exc)}
    with contextlib.suppress(OSError):
        (root / "filler.bin").unlink()
    return {"filled": filled, "results": results, "entries": listed}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1])), ensure_ascii=True))
