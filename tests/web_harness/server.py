"""A stdlib HTTP server on 127.0.0.1 that lets the popup page run in headless Chromium.

Every URL starts with a random token (``/<token>/...``), so the page's relative URLs carry it
on every request and nothing without it is served. Routes under the token:

* ``GET  <file>``          a file from ``web/`` (nothing outside it)
* ``POST api/<method>``    one ``Bridge`` command with a JSON payload, answered with its envelope
* ``GET  events``          the Core's events as Server-Sent Events, one JSON array per message

Every request is recorded (``requests``), so a test can prove the page asked for nothing it
should not (a remote image, say). ``open_link`` and ``hide`` are recorded, not performed.
"""

from __future__ import annotations

import inspect
import json
import mimetypes
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from tray_app.core.service import Core
from tray_app.desktop.hotkey.hotkey import support as hotkey_support
from tray_app.desktop.popup.bridge import Bridge

REPO = Path(__file__).resolve().parents[2]
WEB_ROOT = REPO / "web"
SHIM = Path(__file__).with_name("harness.js")
PUMP_INTERVAL = 0.03  # the desktop ui pump's rhythm (docs/architecture.md §1)

TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json"}


def bridge_methods() -> list[str]:
    return [
        name
        for name, member in inspect.getmembers(Bridge, inspect.isfunction)
        if not name.startswith("_")
    ]


class PageHarness:
    def __init__(self, core: Core, *, web_root: Path = WEB_ROOT) -> None:
        self.core = core
        self.web_root = web_root.resolve()
        self.token = secrets.token_urlsafe(18)
        self.requests: list[str] = []  # "METHOD /path" for every request, token or not
        self.opened_links: list[str] = []
        self.hide_calls = 0
        # The native save dialog's fake: the names it was asked to suggest, and the path it
        # answers with (None: the user cancelled).
        self.save_requests: list[str] = []
        self.save_to: Path | None = None
        # The desktop session the page's hotkey check sees (tests set WAYLAND_DISPLAY here).
        self.hotkey_environ: dict[str, str] = {}
        self.bridge = Bridge(
            core,
            hide_window=self._hide,
            save_file=self._save_file,
            open_url=self.opened_links.append,
            hotkey_support=lambda: hotkey_support(self.hotkey_environ),
        )
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- life cycle -------------------------------------------------------------------------

    def start(self) -> PageHarness:
        harness = self

        class Handler(_Handler):
            owner = harness

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, name="page-harness", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> PageHarness:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- what the tests use -----------------------------------------------------------------

    @property
    def origin(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base(self) -> str:
        return f"/{self.token}/"

    @property
    def url(self) -> str:
        return f"{self.origin}{self.base}index.html"

    def init_script(self) -> str:
        """The shim, with its configuration, for Playwright's ``add_init_script``."""
        config = json.dumps({"base": self.base, "methods": bridge_methods()})
        return f"window.__metonaHarness = {config};\n{SHIM.read_text(encoding='utf-8')}"

    def saw(self, fragment: str) -> bool:
        return any(fragment in line for line in list(self.requests))

    def _hide(self) -> None:
        self.hide_calls += 1

    def _save_file(self, name: str) -> str | None:
        self.save_requests.append(name)
        return str(self.save_to) if self.save_to is not None else None


class _Handler(BaseHTTPRequestHandler):
    owner: PageHarness
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def _route(self, method: str) -> None:
        owner = self.owner
        path = unquote(urlsplit(self.path).path)
        owner.requests.append(f"{method} {path}")
        if not path.startswith(owner.base):
            self._send(403, b"forbidden", "text/plain")
            return
        rest = path[len(owner.base) :]
        if method == "POST" and rest.startswith("api/"):
            self._api(rest[4:])
        elif method == "GET" and rest == "events":
            self._events()
        elif method == "GET":
            self._file(rest)
        else:
            self._send(405, b"method not allowed", "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _file(self, rest: str) -> None:
        root = self.owner.web_root
        target = (root / (rest or "index.html")).resolve()
        if root not in target.parents or not target.is_file():
            self._send(404, b"not found", "text/plain")
            return
        kind = TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0] or "text/plain"
        if kind.startswith("text/") or kind == "application/json":
            kind += "; charset=utf-8"
        self._send(200, target.read_bytes(), kind)

    def _api(self, name: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            payload = json.loads(self.rfile.read(length) or b"null")
        except json.JSONDecodeError:
            self._send(400, b"bad json", "text/plain")
            return
        if name not in bridge_methods():
            envelope: Any = {"ok": False, "code": "unsupported", "error": f"no command {name}"}
        else:
            envelope = getattr(self.owner.bridge, name)(payload)
        body = json.dumps(envelope, default=str).encode()
        self._send(200, body, "application/json")

    def _events(self) -> None:
        owner = self.owner
        subscription = owner.core.bus.subscribe()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.wfile.write(b"event: ready\ndata: {}\n\n")
            self.wfile.flush()
            idle = 0.0
            while not owner._stopping.is_set():
                batch = subscription.drain()
                if batch:
                    data = json.dumps([e.model_dump(mode="json") for e in batch])
                    self.wfile.write(f"data: {data}\n\n".encode())
                    self.wfile.flush()
                    idle = 0.0
                elif idle > 10:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    idle = 0.0
                time.sleep(PUMP_INTERVAL)
                idle += PUMP_INTERVAL
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            subscription.close()
