"""Which process owns a pending journal entry, so the sweep can tell a dead writer's row from a
live one's (a reused pid has another start time)."""

from __future__ import annotations

import os
from pathlib import Path


def _proc_stat(pid: int) -> tuple[str, str]:
    """(state, start time) of a process on Linux; ("", "") where /proc cannot tell."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "", ""
    fields = text.rsplit(")", 1)[-1].split()
    return (fields[0], fields[19]) if len(fields) > 19 else ("", "")


def owner_tag() -> str:
    """This process, as a pending row records it: pid and start time (a reused pid differs)."""
    pid = os.getpid()
    return f"{pid}:{_proc_stat(pid)[1]}"


def owner_alive(tag: str | None) -> bool:
    """False only when sure the owner is gone. Windows cannot tell (``os.kill`` would kill
    there), so a pending row's age decides."""
    if os.name != "posix":
        return True
    pid_text, _, start = (tag or "").partition(":")
    if not pid_text.isdigit():
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    state, now = _proc_stat(pid)
    if state == "Z":  # killed, not yet reaped
        return False
    return not (start and now and now != start)
