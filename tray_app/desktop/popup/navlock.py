"""The navigation lock: the popup's window never leaves the app's own page.

Refused in the engine's own policy hook, before anything loads: script navigation
(``location.href = ...``), links, middle clicks, a link or file dropped on the window (the
engine turns a drop into a navigation) and ``window.open``/``target=_blank`` (which pywebview
would otherwise open or even load in the window). Only a main-frame load of the app's own URL
(ignoring the fragment) passes. Links reach the system browser only through the bridge's
``open_link`` command, after the page has shown the real target.

Linux/GTK is verified by tests/e2e/test_navigation_lock.py. The Cocoa and WebView2 versions
are written from pywebview 6.2.1's backends and have NOT been run (no macOS or Windows here).
Every hook is installed by replacing the backend's own handler before the window is created,
so no navigation happens before the lock is in place.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Allowed = Callable[[str], bool]
Refused = Callable[[str, str], None]  # (url, kind)


def install(allowed: Allowed, refused: Refused) -> str:
    """Install the lock for the backend this platform uses; returns its name."""
    if sys.platform.startswith("linux"):
        install_gtk(allowed, refused)
        return "gtk"
    if sys.platform == "darwin":
        install_cocoa(allowed, refused)
        return "cocoa"
    if sys.platform == "win32":
        install_edgechromium(allowed, refused)
        return "edgechromium"
    raise RuntimeError(f"no navigation lock for {sys.platform}")


def install_gtk(allowed: Allowed, refused: Refused) -> None:
    """WebKit2GTK ``decide-policy``: pywebview connects ``BrowserView.on_navigation``."""
    from webview.platforms import gtk

    backend: Any = gtk
    webkit: Any = backend.webkit
    kinds = webkit.PolicyDecisionType

    def on_navigation(self: Any, _webview: Any, decision: Any, decision_type: Any) -> bool:
        if decision_type in (kinds.NAVIGATION_ACTION, kinds.NEW_WINDOW_ACTION):
            uri = str(decision.get_navigation_action().get_request().get_uri() or "")
            if decision_type == kinds.NAVIGATION_ACTION and allowed(uri):
                decision.use()
                return True
            decision.ignore()
            kind = "new_window" if decision_type == kinds.NEW_WINDOW_ACTION else "navigation"
            refused(uri, kind)
            return True
        if decision_type == kinds.RESPONSE:
            if decision.is_mime_type_supported():
                decision.use()
            else:  # no downloads into the popup
                decision.ignore()
                refused(str(decision.get_request().get_uri() or ""), "download")
            return True
        return False

    backend.BrowserView.on_navigation = on_navigation


def install_cocoa(allowed: Allowed, refused: Refused) -> None:  # pragma: no cover - untested
    """WKNavigationDelegate ``decidePolicyForNavigationAction`` and WKUIDelegate
    ``createWebViewWithConfiguration`` (window.open) on pywebview's ``BrowserDelegate``."""
    import objc  # type: ignore[import-not-found]
    from webview.platforms import cocoa as backend

    delegate: Any = backend.BrowserView.BrowserDelegate
    original = delegate.webView_decidePolicyForNavigationAction_decisionHandler_

    def decide(self: Any, webview: Any, action: Any, handler: Any) -> None:
        url = str(action.request().URL().absoluteString() or "")
        main = action.targetFrame() is not None and action.targetFrame().isMainFrame()
        if main and allowed(url):
            original(self, webview, action, handler)
            return
        refused(url, "navigation")
        handler(0)  # WKNavigationActionPolicyCancel

    def create(self: Any, webview: Any, config: Any, action: Any, features: Any) -> Any:
        refused(str(action.request().URL().absoluteString() or ""), "new_window")
        return None

    delegate.webView_decidePolicyForNavigationAction_decisionHandler_ = objc.selector(
        decide, signature=original.signature
    )
    creator = delegate.webView_createWebViewWithConfiguration_forNavigationAction_windowFeatures_
    delegate.webView_createWebViewWithConfiguration_forNavigationAction_windowFeatures_ = (
        objc.selector(create, signature=creator.signature)
    )


def install_edgechromium(allowed: Allowed, refused: Refused) -> None:  # pragma: no cover
    """WebView2 ``NavigationStarting`` (pywebview connects ``on_navigation_start``) and
    ``NewWindowRequested`` (``on_new_window_request``): cancel, mark handled."""
    from webview.platforms import edgechromium as backend

    chrome: Any = backend.EdgeChrome
    original_start = chrome.on_navigation_start

    def on_navigation_start(self: Any, sender: Any, args: Any) -> None:
        url = str(args.Uri or "")
        if allowed(url):
            original_start(self, sender, args)
            return
        args.Cancel = True
        refused(url, "navigation")

    def on_new_window_request(self: Any, sender: Any, args: Any) -> None:
        args.Handled = True  # no new window, and nothing loaded in this one
        refused(str(args.Uri or ""), "new_window")

    chrome.on_navigation_start = on_navigation_start
    chrome.on_new_window_request = on_new_window_request
