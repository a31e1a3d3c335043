"""Run one child process with capped output, a deadline, cancellation, and a tree kill.

What is guaranteed when a run ends (timeout, cancel, or the shell simply exiting):

* POSIX: the child starts a new session, so its whole process group and session get SIGTERM,
  then SIGKILL after a short grace. On Linux every process is also found by walking ``/proc``:
  descendants by parent pid, members of the child's session or group, and any process whose
  environment carries this run's ``METONA_RUN_ID`` cookie (the trick Jenkins uses) — which also
  catches children that called ``setsid`` and were re-parented to init. Kills repeat until a scan
  finds nothing left. A process that both clears its environment and double-forks into a new
  session can still escape; the bubblewrap sandbox closes that gap (its PID namespace dies with
  the sandbox). Elsewhere (macOS) the group and the parent-pid tree from ``ps`` are killed.
* Windows: ``taskkill /T /F`` on the child's tree (untested here; a job object would be stronger).

Anything still running when the shell exits is killed too: run_command is not a way to start
background services, and a leftover child holding the output pipe would otherwise hang the call.
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)

RUN_ID_ENV = "METONA_RUN_ID"
TERM_GRACE = 0.5
KILL_DEADLINE = 5.0
POLL = 0.02


@dataclass
class RunOutcome:
    returncode: int | None
    stdout: str
    stderr: str
    truncated_stdout: bool
    truncated_stderr: bool
    timed_out: bool
    cancelled: bool
    duration_ms: int
    started: bool = True


class _CappedReader(threading.Thread):
    """Drains a pipe to EOF, keeping the first ``cap`` bytes: the child never blocks on it."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        super().__init__(daemon=True, name="run-command-reader")
        self._stream = stream
        self._cap = cap
        self._lock = threading.Lock()
        self._chunks: list[bytes] = []
        self._kept = 0
        self.truncated = False

    def run(self) -> None:
        fd = self._stream.fileno()
        try:
            while chunk := os.read(fd, 65536):
                with self._lock:
                    room = self._cap - self._kept
                    if len(chunk) > room:
                        self.truncated = True
                        chunk = chunk[: max(room, 0)]
                    if chunk:
                        self._chunks.append(chunk)
                        self._kept += len(chunk)
        except OSError:  # the pipe was closed under us: nothing more to read
            pass
        finally:
            with contextlib.suppress(OSError):
                self._stream.close()

    def text(self) -> str:
        with self._lock:
            data = b"".join(self._chunks)
        # A cut in the middle of a UTF-8 sequence drops the partial character.
        return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def run_captured(
    argv: Sequence[str] | str,
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    cancel: threading.Event,
    cap: int,
    pass_fds: Sequence[int] = (),
) -> RunOutcome:
    """Run ``argv`` to completion, timeout or cancellation; kill whatever it leaves behind."""
    run_id = f"{os.getpid()}-{uuid.uuid4().hex}"  # the owner pid lets a later start reap orphans
    env = {**env, RUN_ID_ENV: run_id}
    start = time.monotonic()
    proc = _spawn(argv, cwd=cwd, env=env, pass_fds=pass_fds)
    assert proc.stdout is not None and proc.stderr is not None
    readers = [_CappedReader(proc.stdout, cap), _CappedReader(proc.stderr, cap)]
    for reader in readers:
        reader.start()
    timed_out = cancelled = False
    deadline = start + timeout
    try:
        while True:
            if cancel.is_set():
                cancelled = True
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            try:
                proc.wait(timeout=min(0.05, remaining))
                break
            except subprocess.TimeoutExpired:
                continue
    finally:
        # Also on normal exit: background children would keep the pipes (and the call) open.
        kill_tree(proc, run_id)
    for reader in readers:
        reader.join(timeout=2.0)
        if reader.is_alive():
            log.warning("a process outside the tree still holds run_command's output pipe")
    return RunOutcome(
        returncode=proc.returncode,
        stdout=readers[0].text(),
        stderr=readers[1].text(),
        truncated_stdout=readers[0].truncated,
        truncated_stderr=readers[1].truncated,
        timed_out=timed_out,
        cancelled=cancelled,
        duration_ms=int((time.monotonic() - start) * 1000),
    )


def run_in_group(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    cancel: threading.Event,
    cap: int,
) -> RunOutcome:
    """``run_captured`` for a trusted program that starts no daemons (git with its programs
    switched off): the same caps, deadline and cancellation, but only its own process group
    is killed at the end, without ``run_captured``'s scans of every process (~30 ms each)."""
    start = time.monotonic()
    proc = _spawn(argv, cwd=cwd, env=env, pass_fds=())
    assert proc.stdout is not None and proc.stderr is not None
    readers = [_CappedReader(proc.stdout, cap), _CappedReader(proc.stderr, cap)]
    for reader in readers:
        reader.start()
    timed_out = cancelled = False
    deadline = start + timeout
    try:
        while proc.poll() is None:
            if cancel.is_set():
                cancelled = True
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=min(0.05, remaining))
    finally:
        _kill_group(proc)
    for reader in readers:
        reader.join(timeout=2.0)
    return RunOutcome(
        returncode=proc.returncode,
        stdout=readers[0].text(),
        stderr=readers[1].text(),
        truncated_stdout=readers[0].truncated,
        truncated_stderr=readers[1].truncated,
        timed_out=timed_out,
        cancelled=cancelled,
        duration_ms=int((time.monotonic() - start) * 1000),
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's process group (its own session), whatever is left of it; reap it."""
    if sys.platform == "win32":
        if proc.poll() is None:
            _kill_tree_windows(proc)
        return
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=KILL_DEADLINE)


def _spawn(
    argv: Sequence[str] | str, *, cwd: Path, env: dict[str, str], pass_fds: Sequence[int]
) -> subprocess.Popen[bytes]:
    if sys.platform == "win32":
        flags = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.CREATE_NO_WINDOW
        return subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            creationflags=flags,
        )
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
        close_fds=True,
    )


def kill_tree(proc: subprocess.Popen[bytes], run_id: str) -> None:
    """Kill ``proc`` and every process it started; reap ``proc``. Safe to call when it exited."""
    if sys.platform == "win32":
        _kill_tree_windows(proc)
        return
    pid = proc.pid
    targets = _tree_pids(pid, run_id)
    if proc.poll() is None:
        targets.add(pid)
    if targets:
        _signal_all(pid, targets, signal.SIGTERM)
        grace_end = time.monotonic() + TERM_GRACE
        while time.monotonic() < grace_end and (
            proc.poll() is None or _tree_pids(pid, run_id, alive_only=True)
        ):
            time.sleep(POLL)
    end = time.monotonic() + KILL_DEADLINE
    while True:
        targets = _tree_pids(pid, run_id, alive_only=True)
        if proc.poll() is None:
            targets.add(pid)
        if not targets:
            break
        _signal_all(pid, targets, signal.SIGKILL)
        if time.monotonic() > end:
            log.warning("run_command: processes %s survived SIGKILL", sorted(targets))
            break
        time.sleep(POLL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=KILL_DEADLINE)


def _signal_all(leader: int, pids: set[int], sig: signal.Signals) -> None:
    with contextlib.suppress(OSError):
        os.killpg(leader, sig)
    for target in pids:
        if target in (os.getpid(), 1):
            continue
        with contextlib.suppress(OSError):
            os.kill(target, sig)


def _tree_pids(leader: int, run_id: str, *, alive_only: bool = False) -> set[int]:
    """Processes belonging to the run (excluding zombies when ``alive_only``)."""
    if Path("/proc/self/stat").exists():
        return _linux_tree(leader, run_id, alive_only=alive_only)
    return _ps_tree(leader)


def _linux_tree(leader: int, run_id: str, *, alive_only: bool) -> set[int]:
    cookie = f"{RUN_ID_ENV}={run_id}".encode()
    me = os.getpid()
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    zombies: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read()
            fields = stat[stat.rindex(b")") + 2 :].split()
            state, ppid, pgrp, session = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
        except (OSError, ValueError, IndexError):
            continue
        if state == b"Z":
            zombies.add(pid)
        children.setdefault(ppid, []).append(pid)
        if pgrp == leader or session == leader:
            found.add(pid)
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if cookie in fh.read():
                    found.add(pid)
        except OSError:
            continue
    stack = [leader, *found]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    found.discard(leader)
    return found - zombies if alive_only else found


def _ps_tree(leader: int) -> set[int]:
    """macOS and other POSIX systems: the group and the parent-pid tree as ``ps`` shows them."""
    try:
        listing = subprocess.run(
            ["ps", "-A", "-o", "pid=,ppid=,pgid=,stat="],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) < 4 or parts[3].startswith("Z"):
            continue
        pid, ppid, pgid = int(parts[0]), int(parts[1]), int(parts[2])
        children.setdefault(ppid, []).append(pid)
        if pgid == leader:
            found.add(pid)
    stack = [leader, *found]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    found.discard(leader)
    found.discard(os.getpid())
    return found


def _kill_tree_windows(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["taskkill", "/T", "/F", "/PID", str(proc.pid)],
            capture_output=True,
            timeout=KILL_DEADLINE,
            check=False,
        )
    with contextlib.suppress(OSError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=KILL_DEADLINE)
