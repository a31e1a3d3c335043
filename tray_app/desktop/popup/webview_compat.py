"""Make pywebview's JS bridge work under the page's strict Content-Security-Policy.

The page can call tools, so its CSP has no ``'unsafe-eval'``; pywebview 6.2 needs eval twice
(pywebview #1243; verified here under WebKitGTK, where the API stayed empty):

1. each ``window.pywebview.api.<method>`` stub is built with ``new Function(...)``:
   ``allow_strict_csp`` rewrites that one statement of the injected script into a closure;
2. each result goes back to the page through ``window.evaluate_js``, which wraps the script in
   ``eval("...")``: ``eval_free`` replaces that method on our window with ``run_js``, which
   hands the script to the engine directly (not an eval in the page, so CSP does not apply).

If a future pywebview changes that code, nothing is rewritten, a warning is logged, and the
e2e tests fail loudly. Not a weaker CSP: the page keeps ``script-src 'self'``.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

log = logging.getLogger(__name__)

_NEW_FUNCTION = re.compile(
    r"nestedObject\[functionName\]\s*=\s*new Function\("
    r"\s*sanitize_params\(params\),\s*funcBody\s*\);"
)
_CLOSURE = """nestedObject[functionName] = (function (name) {
        return function () {
          var __id = (Math.random() + '').substring(2);
          var promise = new Promise(function (resolve, reject) {
            window.pywebview._checkValue(name, resolve, reject, __id);
          });
          window.pywebview._jsApiCallback(name, Array.prototype.slice.call(arguments), __id);
          return promise;
        };
      })(funcName);"""

_patched = False


def rewrite_api_script(js_code: str) -> tuple[str, bool]:
    """The injected script with closure-built stubs, and whether the rewrite applied."""
    rewritten, count = _NEW_FUNCTION.subn(lambda _m: _CLOSURE, js_code)
    return rewritten, count == 1


def allow_strict_csp() -> None:
    """Wrap ``webview.util.load_js_files`` once per process (before ``webview.start``)."""
    global _patched
    if _patched:
        return
    import webview.util as util

    original = util.load_js_files

    def load_js_files(window: Any, platform: str) -> Any:
        loaded: Any = original(window, platform)  # (script, finish script); typed as str
        js_code, finish_script = loaded
        rewritten, applied = rewrite_api_script(js_code)
        if not applied:
            log.warning("pywebview's API script changed; the page's CSP may block the bridge")
        return rewritten, finish_script

    util.load_js_files = load_js_files
    _patched = True


def eval_free(window: Any) -> None:
    """Route this window's ``evaluate_js`` (pywebview's return path for bridge results) to
    ``run_js``. Results of our own queries are read with ``evaluate_json`` instead."""

    def evaluate_js(script: str, callback: Any = None) -> Any:
        return window.run_js(script)

    window.evaluate_js = evaluate_js


def evaluate_json(window: Any, expression: str) -> Any:
    """Evaluate a JS expression without eval and return its JSON value."""
    text = window.run_js(f"JSON.stringify((function () {{ return ({expression}); }})())")
    return None if text is None else json.loads(text)
