"""Single instance: a lock file plus an authenticated local socket for forwarding commands.

The first launch takes an exclusive lock on ``runtime_dir/instance.lock`` (held until exit;
the OS drops it when the process dies, so a stale lock left by a crash is simply free again)
and listens on ``runtime_dir/instance.sock`` (a named pipe on Windows). A second launch fails
to take the lock, connects, asks the first to show its popup (``--toggle``: toggle it) and exits.

Authentication: a random key in ``instance.key`` (mode 0600, inside the 0700 runtime folder)
is the ``authkey`` of ``multiprocessing.connection``, whose HMAC challenge runs both ways
before any command is read. Messages are JSON bytes (``send_bytes``), never pickles.

Commands: ``show``, ``toggle``, ``hide``, ``quit``, ``ping``, ``mcp_open``, ``mcp_tools``; with
``METONA_TEST_HOOKS=1`` in the first instance's environment, also the test-only commands handled
by ``app.py`` (documented there). A *conversation* (``mcp_call``,
``desktop/instance/mcp_link.py``) keeps its connection while it runs: its handler may read more
messages (a cancel) before it answers.
Windows path (named pipe, ``msvcrt`` lock) is untested here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import TYPE_CHECKING

# ``--toggle`` and a second launch import this module and little else (``forward_if_running``):
# what only the first instance needs (logging, secrets, typing) is imported where it is used.
if TYPE_CHECKING:
    import logging
    from collections.abc import Callable
    from typing import IO, Any

    Handler = Callable[[dict[str, Any]], dict[str, Any]]
    #: A command that holds its connection while it runs (it may read a cancel from it).
    Conversation = Callable[[dict[str, Any], Connection], dict[str, Any]]

MAX_MESSAGE = 16_000_000  # a forwarded tool call carries a file's content (mcp_link.py)
UNIX_PATH_MAX = 100  # sun_path is 104-108 bytes depending on the OS; keep a margin


def _log() -> logging.Logger:
    import logging

    return logging.getLogger(__name__)


class InstanceError(RuntimeError):
    """Another instance holds the lock but cannot be reached."""


class InstanceTimeout(InstanceError):
    """The instance is there but did not answer in time (it may still act on the request)."""


def socket_address(runtime_dir: Path) -> tuple[str, str]:
    """``(address, family)`` of the instance socket for this runtime folder.

    Unix socket paths are limited to ~104 bytes: a long runtime folder (deep test temp
    folders, long home paths) gets a short path in a private 0700 folder under the temp dir,
    named by a hash of the runtime folder so that every launch agrees on it.
    """
    if sys.platform == "win32":
        digest = hashlib.sha256(str(runtime_dir).encode()).hexdigest()[:16]
        return rf"\\.\pipe\metona-tray-{digest}", "AF_PIPE"
    path = runtime_dir / "instance.sock"
    if len(os.fsencode(path)) <= UNIX_PATH_MAX:
        return str(path), "AF_UNIX"
    digest = hashlib.sha256(os.fsencode(runtime_dir)).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"metona-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
        raise InstanceError(f"{folder} is not a private folder; remove it and try again")
    return str(folder / f"{digest}.sock"), "AF_UNIX"


def _lock(handle: IO[bytes]) -> bool:
    """Take the exclusive lock without waiting; False when another process has it."""
    try:
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


class SingleInstance:
    """``acquire()`` once at start; then either ``serve(handler)`` or ``send(command)``."""

    def __init__(self, runtime_dir: Path) -> None:
        self.runtime_dir = runtime_dir
        self.lock_path = runtime_dir / "instance.lock"
        self.key_path = runtime_dir / "instance.key"
        self.address, self.family = socket_address(runtime_dir)
        self._lock_handle: IO[bytes] | None = None
        self._listener: Listener | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # ---- the lock --------------------------------------------------------------------------

    def acquire(self) -> bool:
        """True when this process is the first instance (and now holds the lock)."""
        self.runtime_dir.mkdir(parents=True, exist_ok=True)
        if os.name == "posix":
            os.chmod(self.runtime_dir, 0o700)
        handle = open(self.lock_path, "a+b")  # noqa: SIM115 - held open for the app's life
        if not _lock(handle):
            handle.close()
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n".encode())
        handle.flush()
        self._lock_handle = handle
        return True

    def holder_pid(self) -> int | None:
        try:
            return int(self.lock_path.read_text().strip() or 0) or None
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        self.stop()
        if self._lock_handle is not None:
            with contextlib.suppress(OSError):
                self._lock_handle.close()  # closing drops the lock
            self._lock_handle = None

    # ---- the server (first instance) -------------------------------------------------------

    def _new_key(self) -> bytes:
        import secrets

        key = secrets.token_bytes(32)
        fd = os.open(self.key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key.hex().encode())
        if os.name == "posix":
            os.chmod(self.key_path, 0o600)
        return key

    def serve(self, handler: Handler, conversations: dict[str, Conversation] | None = None) -> None:
        """Start answering second launches on a daemon thread; needs the lock."""
        if self._lock_handle is None:
            raise RuntimeError("serve() needs the instance lock")
        key = self._new_key()
        if self.family == "AF_UNIX":
            # We hold the lock, so a socket file left here belongs to a dead instance.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.address)
        self._listener = Listener(self.address, self.family, authkey=key)
        if self.family == "AF_UNIX":
            os.chmod(self.address, 0o600)
        self._thread = threading.Thread(
            target=self._accept_loop,
            args=(handler, dict(conversations or {})),
            name="metona-instance",
            daemon=True,
        )
        self._thread.start()

    def _accept_loop(self, handler: Handler, conversations: dict[str, Conversation]) -> None:
        listener = self._listener
        assert listener is not None
        while not self._stopping.is_set():
            try:
                conn = listener.accept()  # runs the HMAC challenge; raises on a bad key
            except (OSError, EOFError) as exc:
                if self._stopping.is_set():
                    return
                _log().warning("instance socket: refused a connection (%s)", exc)
                continue
            except Exception as exc:  # AuthenticationError and friends
                _log().warning("instance socket: refused a connection (%s)", exc)
                continue
            if self._stopping.is_set():
                conn.close()
                return
            threading.Thread(
                target=self._answer,
                args=(conn, handler, conversations),
                name="metona-instance-conn",
                daemon=True,
            ).start()

    @staticmethod
    def _answer(conn: Connection, handler: Handler, conversations: dict[str, Conversation]) -> None:
        with conn:
            try:
                request = json.loads(conn.recv_bytes(MAX_MESSAGE))
                if not isinstance(request, dict) or not isinstance(request.get("command"), str):
                    raise ValueError("a request is a JSON object with a command")
                talk = conversations.get(request["command"])
                reply = talk(request, conn) if talk is not None else handler(request)
            except Exception as exc:
                _log().warning("instance command failed: %s", exc)
                reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            with contextlib.suppress(OSError):
                conn.send_bytes(json.dumps(reply, default=str).encode())

    def stop(self) -> None:
        """Stop accepting; wakes the accept loop by connecting to it once."""
        if self._listener is None:
            return
        self._stopping.set()
        with contextlib.suppress(Exception):
            self.send({"command": "ping"}, timeout=1.0)
        with contextlib.suppress(OSError):
            self._listener.close()  # also removes the socket file
        self._listener = None
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(1.0)
        self._thread = None
        with contextlib.suppress(OSError):
            self.key_path.unlink()

    # ---- the client (second launch) --------------------------------------------------------

    def connect(self, request: dict[str, Any], *, timeout: float = 10.0) -> Connection:
        """Open a connection to the running instance and send ``request`` on it; the caller
        reads the answer (and owns the connection). ``InstanceError`` when nobody answers."""
        try:
            key = bytes.fromhex(self.key_path.read_text().strip())
        except (OSError, ValueError) as exc:
            raise InstanceError(f"cannot read the instance key ({exc})") from exc
        opened: list[Connection] = []
        error: list[BaseException] = []
        lock, abandoned = threading.Lock(), threading.Event()

        def dial() -> None:
            try:
                conn = Client(self.address, self.family, authkey=key)
                with lock:
                    if abandoned.is_set():  # too late: closing tells the instance to drop it
                        conn.close()
                        return
                    conn.send_bytes(json.dumps(request).encode())
                    opened.append(conn)
            except BaseException as exc:
                error.append(exc)

        worker = threading.Thread(target=dial, name="metona-instance-dial", daemon=True)
        worker.start()
        worker.join(timeout)
        with lock:
            if not opened and not error:
                abandoned.set()
                raise InstanceTimeout(f"the running instance did not answer within {timeout:g} s")
        if error:
            raise InstanceError(f"cannot reach the running instance ({error[0]})") from error[0]
        return opened[0]

    def send(self, request: dict[str, Any], *, timeout: float = 10.0) -> dict[str, Any]:
        """Send one command to the running instance and return its reply."""
        try:
            key = bytes.fromhex(self.key_path.read_text().strip())
        except (OSError, ValueError) as exc:
            raise InstanceError(f"cannot read the instance key ({exc})") from exc
        result: dict[str, Any] = {}
        error: list[BaseException] = []

        def talk() -> None:
            try:
                with Client(self.address, self.family, authkey=key) as conn:
                    conn.send_bytes(json.dumps(request).encode())
                    result.update(json.loads(conn.recv_bytes(MAX_MESSAGE)))
            except BaseException as exc:
                error.append(exc)

        # multiprocessing's Client has no timeout: a hung first instance must not hang us.
        worker = threading.Thread(target=talk, name="metona-instance-client", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise InstanceTimeout(f"the running instance did not answer within {timeout:g} s")
        if error:
            raise InstanceError(f"cannot reach the running instance ({error[0]})") from error[0]
        return result


def forward(instance: SingleInstance, command: str, *, wait: float = 15.0) -> int:
    """Second launch: ask the first instance; retry while it is still starting. Exit code."""
    deadline = time.monotonic() + wait
    while True:
        try:
            reply = instance.send({"command": command})
        except InstanceError as exc:
            if time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            pid = instance.holder_pid()
            print(
                f"metona-tray is already running (pid {pid}) but does not answer: {exc}",
                file=sys.stderr,
            )
            return 1
        return 0 if reply.get("ok") else 1


def forward_if_running(runtime_dir: Path, command: str) -> int | None:
    """``forward`` when another instance holds the lock, else None (start the app).

    The fast path of ``metona-tray`` and ``--toggle``: this module and ``tray_app.base.paths`` are
    all it needs, so a second launch imports nothing of the core or the GUI.
    """
    instance = SingleInstance(runtime_dir)
    if not instance.lock_path.exists():
        return None
    if instance.acquire():  # nobody is running: the app's own start takes the lock again
        instance.release()
        return None
    return forward(instance, command)
