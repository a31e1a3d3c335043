"""Bridge calls need the per-launch secret; only the app's page is given it."""

from __future__ import annotations

from typing import Any

from tray_app.desktop.popup.bridge import bridge_commands
from tray_app.desktop.popup.guard import KeyCourier, new_secret, page_api, refused_calls


def test_calls_without_the_secret_never_reach_forward() -> None:
    secret = new_secret()
    forwarded: list[tuple[str, Any]] = []
    api: Any = page_api(
        bridge_commands(), lambda c, p: forwarded.append((c, p)) or {"ok": True}, secret
    )
    assert api.status({}, secret) == {"ok": True}
    for key in (None, "", "x" * 43, secret[:-1], 12, {"secret": secret}):
        assert api.update_settings({"patch": {}}, key)["code"] == "forbidden"
    assert api.decide({"call_id": "c", "approve": True})["code"] == "forbidden"
    assert forwarded == [("status", {})]
    assert refused_calls(api) == 7


def test_only_commands_are_public() -> None:
    api = page_api(["status", "_private", "bad name", ""], lambda c, p: {}, new_secret())
    assert [n for n in dir(api) if not n.startswith("_")] == ["status"]


def test_the_secret_goes_only_to_the_app_page() -> None:
    secret = new_secret()
    scripts: list[str] = []

    def run_js(script: str) -> Any:
        scripts.append(script)
        return True

    courier = KeyCourier(secret, lambda: "http://127.0.0.1:5/index.html")
    assert not courier.deliver(lambda: "http://127.0.0.1:9/evil.html", run_js)
    assert not courier.deliver(lambda: "http://127.0.0.1:5/index.html.evil", run_js)
    assert not courier.deliver(lambda: None, run_js)
    assert scripts == []
    assert courier.deliver(lambda: "http://127.0.0.1:5/index.html#chat", run_js)
    assert len(scripts) == 1 and secret in scripts[0] and scripts[0].isascii()
