"""The object pywebview exposes to the page, guarded by a per-launch secret.

pywebview injects ``window.pywebview.api`` into every page its window finishes loading,
whatever the URL (docs/architecture.md §1). The navigation lock keeps foreign pages out of the
window; this is the second wall: every call must carry ``secret``, which only the app's own
page receives (``KeyCourier`` hands it over with ``run_js`` after checking the window's URL,
and ``web/js/lib/bridge.js`` keeps it in a closure). A call without it is refused and logged and
never reaches Core.

The api object has one method per bridge command, ``method(payload, key)``; it forwards
``(command, payload)`` to ``forward`` (in the desktop app: over the link to the tray process,
where ``tray_app.desktop.popup.bridge.Bridge`` validates and calls Core).
"""

from __future__ import annotations

import hmac
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from tray_app.desktop.popup.wire import ascii_json

log = logging.getLogger(__name__)

Forward = Callable[[str, Any], dict[str, Any]]
KEY_SCRIPT = "(window.metona && window.metona.key ? window.metona.key(%s) : false)"
REFUSED = {"ok": False, "code": "forbidden", "error": "this page may not use the app's bridge"}


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def page_api(commands: Iterable[str], forward: Forward, secret: str) -> object:
    """A fresh object with one guarded method per command (public names only)."""
    refused = {"count": 0}
    lock = threading.Lock()

    def make(command: str) -> Callable[..., dict[str, Any]]:
        def method(self: object, payload: Any = None, key: Any = None) -> dict[str, Any]:
            if not isinstance(key, str) or not hmac.compare_digest(key, secret):
                with lock:
                    refused["count"] += 1
                log.warning("bridge: refused %s from a page without the app's secret", command)
                return dict(REFUSED)
            return forward(command, payload)

        method.__name__ = command
        return method

    names = sorted({c for c in commands if c and not c.startswith("_") and c.isidentifier()})
    namespace: dict[str, Any] = {name: make(name) for name in names}
    namespace["_refused"] = property(lambda _self: refused["count"])
    return type("PageApi", (), namespace)()


def refused_calls(api: object) -> int:
    return int(getattr(api, "_refused", 0))


class KeyCourier:
    """Hands the secret to the page once per load, only when the window shows the app's URL."""

    def __init__(self, secret: str, app_url: Callable[[], str | None]) -> None:
        self._secret = secret
        self._app_url = app_url

    def deliver(
        self,
        current_url: Callable[[], str | None],
        run_js: Callable[[str], Any],
        *,
        timeout: float = 15.0,
    ) -> bool:
        """Once the page's bridge.js runs (``loaded`` can come first: its modules load
        asynchronously), and only while the window shows the app's URL."""
        deadline = time.monotonic() + timeout
        while True:
            url = current_url()
            expected = self._app_url()
            if not expected or not same_page(url, expected):
                log.warning("not giving the bridge secret to %r (not the app's page)", url)
                return False
            if run_js(KEY_SCRIPT % ascii_json(self._secret)) is True:
                return True
            if time.monotonic() > deadline:
                log.warning("the page never took the bridge secret")
                return False
            time.sleep(0.05)


def same_page(url: str | None, app_url: str) -> bool:
    """``url`` is the app's page (ignoring a fragment)."""
    if not url:
        return False
    return url.split("#", 1)[0] == app_url.split("#", 1)[0]
