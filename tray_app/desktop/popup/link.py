"""The one connection between the tray process and the popup process.

A ``multiprocessing`` duplex ``Pipe`` (a socketpair on Unix, a named pipe on Windows) that the
tray creates and hands to the spawned child: no address anyone else could connect to, so no
key exchange is needed. Messages are JSON objects (``send_bytes``), never pickles, so neither
side can make the other run code. Each message has an ``op``; a request carries an ``id`` and
is answered by ``{"op": "answer", "id": ..., "value": ...}``.

One reader thread per side blocks on the connection; ``on_message`` runs on it (keep it short:
anything slow goes to its own thread). ``on_closed`` runs once when the other side is gone
(quit, unload or crash).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

log = logging.getLogger(__name__)

MAX_MESSAGE = 64 * 1024 * 1024  # an attached image in a bridge call can be ~11 MB of base64
Message = dict[str, Any]


class LinkClosed(RuntimeError):
    """The other process is gone."""


class Link:
    def __init__(
        self,
        conn: Connection,
        on_message: Callable[[Message], None],
        *,
        on_closed: Callable[[], None] | None = None,
        name: str = "metona-link",
    ) -> None:
        self._conn = conn
        self._on_message = on_message
        self._on_closed = on_closed
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting: dict[int, tuple[threading.Event, list[Any]]] = {}
        self._lock = threading.Lock()
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self._read, name=name, daemon=True)

    def start(self) -> Link:
        self._thread.start()
        return self

    def send(self, message: Message) -> None:
        if self.closed.is_set():
            raise LinkClosed("the other process is gone")
        data = json.dumps(message, ensure_ascii=False, default=str).encode("utf-8", "replace")
        try:
            with self._send_lock:
                self._conn.send_bytes(data)
        except (OSError, ValueError, EOFError) as exc:
            self._close()
            raise LinkClosed(str(exc)) from exc

    def request(self, message: Message, timeout: float = 30.0) -> Any:
        """Send and wait for the answer (any thread but the reader's)."""
        ident = next(self._ids)
        done, box = threading.Event(), list[Any]()
        with self._lock:
            self._waiting[ident] = (done, box)
        try:
            self.send({**message, "id": ident})
            if not done.wait(timeout):
                raise TimeoutError(f"no answer to {message.get('op')} within {timeout:g} s")
            if not box:
                raise LinkClosed("the other process is gone")
            return box[0]
        finally:
            with self._lock:
                self._waiting.pop(ident, None)

    def answer(self, request: Message, value: Any) -> None:
        try:
            self.send({"op": "answer", "id": request.get("id"), "value": value})
        except LinkClosed:
            log.debug("answer to %s dropped: the other process is gone", request.get("op"))

    def close(self) -> None:
        self._shutdown_socket()
        with contextlib.suppress(OSError):
            self._conn.close()
        self._close()

    def _shutdown_socket(self) -> None:
        """Wake our reader and tell the other side now. Closing the fd alone does neither
        while the reader thread is blocked in ``recv`` on it (Linux keeps the socket open until
        that call returns). Unix only: on Windows the connection is a named pipe."""
        if sys.platform == "win32":
            return
        with contextlib.suppress(OSError, ValueError):
            sock = socket.socket(fileno=os.dup(self._conn.fileno()))
            with sock:
                sock.shutdown(socket.SHUT_RDWR)

    def join(self, timeout: float) -> None:
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # ---- the reader ------------------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                data = self._conn.recv_bytes(MAX_MESSAGE)
            except (EOFError, OSError, TypeError):  # TypeError: closed here meanwhile
                break
            try:
                message = json.loads(data)
            except ValueError:
                log.warning("link: dropped a message that is not JSON")
                continue
            if not isinstance(message, dict):
                continue
            if message.get("op") == "answer":
                with self._lock:
                    waiter = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
                if waiter is not None:
                    waiter[1].append(message.get("value"))
                    waiter[0].set()
                continue
            try:
                self._on_message(message)
            except Exception:
                log.exception("link: handling %s failed", message.get("op"))
        self._close()

    def _close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        with self._lock:
            waiters = list(self._waiting.values())
        for done, _box in waiters:
            done.set()  # wakes every request with "gone"
        if self._on_closed is not None:
            try:
                self._on_closed()
            except Exception:
                log.exception("link: on_closed failed")
