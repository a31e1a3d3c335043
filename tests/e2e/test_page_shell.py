"""The page's shell in the real popup (WebKitGTK under X), clicked with the real pointer: a
script's click cannot widen a setting while the user's click can, the risk confirmation and
the page select work, and the header's Hide button hides the window."""

from __future__ import annotations

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]

POPUP = "Metona"


def centre(app: AppProcess, selector: str) -> list[float]:
    """The element's centre in the page, scrolled into its panel's view and holding still."""
    found = app.eval_js(
        f"(() => {{ const el = document.querySelector({selector!r});"
        " if (el) el.scrollIntoView({block: 'center'}); return !!el; })()"
    )
    assert found, f"no {selector} on the page"
    rect = (
        f"(() => {{ const b = document.querySelector({selector!r}).getBoundingClientRect();"
        " return [b.left + b.width / 2, b.top + b.height / 2]; })()"
    )
    last: list[object] = [None]

    def steady() -> list[float] | None:
        now = app.eval_js(rect)
        same = now == last[0]
        last[0] = now
        return list(now) if same else None

    return wait_for(steady, 5, f"{selector} to hold still")


def click(desktop: DesktopEnv, app: AppProcess, selector: str) -> None:
    """A real pointer click (xdotool) at the element: trusted events from the X server."""
    window = desktop.visible_windows(POPUP)[0]
    x, y, _, _ = desktop.geometry(window)
    cx, cy = centre(app, selector)
    desktop.xdotool("mousemove", "--sync", str(int(x + cx)), str(int(y + cy)))
    desktop.xdotool("click", "1")


def setting(app: AppProcess, name: str) -> object:
    return app.core("get_settings")[name]


def test_only_a_real_click_widens_settings(desktop: DesktopEnv, app: AppProcess) -> None:
    app.send("show")
    wait_for(lambda: app.state()["visible"], 15, "the popup")
    wait_for(
        lambda: app.eval_js("document.querySelector('#app').dataset.checked === 'true'"),
        20,
        "the page",
    )
    click(desktop, app, "#btn-settings")
    wait_for(
        lambda: app.eval_js("document.querySelector('#settings').dataset.armed === 'true'"),
        10,
        "the settings panel, armed",
    )
    # A script's click (WebKit fires a change event for it) is refused and put back.
    app.eval_js("(document.querySelector('#set-run_command_enabled').click(), 1)")
    wait_for(
        lambda: app.eval_js(
            "!!document.querySelector(':has(> .switch #set-run_command_enabled)"
            " .field-error:not([hidden])')"
        ),
        10,
        "the refusal under the switch",
    )
    assert setting(app, "run_command_enabled") is False
    assert app.eval_js("document.querySelector('#set-run_command_enabled').checked") is False
    # The user's click goes through.
    click(desktop, app, "label[for=set-run_command_enabled] .track")
    wait_for(lambda: setting(app, "run_command_enabled") is True, 10, "the real click to count")
    # Full auto: the risk first, then a second real click.
    click(desktop, app, "#set-confirmation_mode-full_auto")
    wait_for(
        lambda: app.eval_js(
            "(() => { const b = document.querySelector('#settings .risk button.danger');"
            " return !!b && !b.disabled; })()"
        ),
        10,
        "the armed confirmation",
    )
    assert setting(app, "confirmation_mode") == "all_writes"
    desktop.screenshot("page-shell-risk")
    click(desktop, app, "#settings .risk button.danger")
    wait_for(lambda: setting(app, "confirmation_mode") == "full_auto", 10, "the confirmed change")
    # The page select by pointer and keys, in WebKit.
    click(desktop, app, "#set-language")
    wait_for(
        lambda: app.eval_js("!document.querySelector('#set-language-list').hidden"),
        10,
        "the language list",
    )
    desktop.screenshot("page-shell-select")
    desktop.xdotool("key", "End", "Return")
    wait_for(lambda: setting(app, "language") == "zh-CN", 10, "the language chosen by keys")
    # The header's Hide button hides the frameless window.
    click(desktop, app, "#btn-hide")
    wait_for(lambda: not app.state()["visible"], 10, "the popup to hide")
