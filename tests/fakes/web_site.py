"""A real web site on 127.0.0.1 for web_fetch: pages by path, each request recorded."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Page:
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class Site:
    port: int = 0
    pages: dict[str, Page] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, Host header)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"


@contextmanager
def web_site(pages: dict[str, Page] | None = None) -> Iterator[Site]:
    site = Site(pages=dict(pages or {}))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.requests.append((self.path, self.headers.get("Host", "")))
            page = site.pages.get(self.path) or Page(b"not here", "text/plain", 404)
            self.send_response(page.status)
            self.send_header("Content-Type", page.content_type)
            self.send_header("Content-Length", str(len(page.body)))
            for name, value in page.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(page.body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
