"""pywebview's bridge script, rewritten so that it runs under a CSP without unsafe-eval."""

from __future__ import annotations

from pathlib import Path

import pytest

from tray_app.desktop.popup.webview_compat import rewrite_api_script


def test_the_installed_pywebview_api_script_is_rewritten() -> None:
    webview = pytest.importorskip("webview")
    api = Path(webview.__file__).parent / "js" / "api.js"
    rewritten, applied = rewrite_api_script(api.read_text())
    assert applied, "pywebview's api.js changed: update webview_compat"
    assert "new Function" not in rewritten
    assert "window.pywebview._jsApiCallback(name" in rewritten


def test_unknown_scripts_are_left_alone() -> None:
    assert rewrite_api_script("var x = 1;") == ("var x = 1;", False)
