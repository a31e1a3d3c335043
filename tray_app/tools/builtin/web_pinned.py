"""An httpx client that connects only to the address ``web_address`` checked.

The URL keeps its host, so the ``Host`` header and TLS's SNI and certificate check name the
site, while the TCP connection goes to the resolved address: the name is never looked up a
second time. No proxy from the environment is used (it would connect elsewhere).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from tray_app.tools.builtin.web_address import Target


class PinnedBackend(httpcore.SyncBackend):
    """Opens TCP connections to ``ip`` only, and only for the host it was made for."""

    def __init__(self, target: Target) -> None:
        self._target = target

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        wanted = self._target.host.lower().strip("[]")
        if host.lower().strip("[]") != wanted or port != self._target.port:
            raise httpcore.ConnectError(f"{host}:{port} was not checked")
        return super().connect_tcp(self._target.ip, port, timeout, local_address, socket_options)


def pinned_client(target: Target, *, timeout: float, user_agent: str) -> httpx.Client:
    """A client for one request to ``target``: no redirects followed (each is checked by the
    caller), no environment proxies, connections to the checked address only."""
    transport = httpx.HTTPTransport(trust_env=False, retries=0)
    pool: httpcore.ConnectionPool = transport._pool
    transport._pool = httpcore.ConnectionPool(
        ssl_context=pool._ssl_context,
        max_connections=1,
        network_backend=PinnedBackend(target),
    )
    return httpx.Client(
        transport=transport,
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
        headers={
            "User-Agent": user_agent,
            "Accept": "text/html,text/plain,application/pdf;q=0.9,*/*;q=0.1",
        },
    )
