"""The js_api bridge: validates every payload, calls Core, answers with one envelope shape."""

from __future__ import annotations

from typing import Any

import pytest

from tray_app.base.errors import Busy, InvalidRequest, NotFound
from tray_app.desktop.popup.bridge import Bridge, checked_link


class FakeCore:
    """Records calls; the bridge needs nothing else from Core."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        if name == "open_link":
            raise AttributeError(name)

        def command(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            if name == "get_session" and args[0] == "missing":
                raise NotFound("no chat 'missing'")
            if name == "send_message" and args[1] == "busy":
                raise Busy("this chat is still answering; stop it first")
            return {"called": name}

        return command


@pytest.fixture
def core() -> FakeCore:
    return FakeCore()


def test_commands_pass_through_with_one_envelope(core: FakeCore) -> None:
    bridge = Bridge(core)  # type: ignore[arg-type]
    assert bridge.list_sessions({"query": "plan"}) == {
        "ok": True,
        "data": {"called": "search_sessions"},
    }
    assert core.calls[-1] == ("search_sessions", ("plan",), {})
    bridge.send_message({"session_id": "s_1", "text": "hi", "images": []})
    assert core.calls[-1] == ("send_message", ("s_1", "hi"), {"images": None})
    bridge.decide({"call_id": "c_1", "approve": True, "remember": True})
    assert core.calls[-1] == (
        "decide",
        ("c_1", True),
        {"remember": True, "by": "popup", "rule": False},
    )
    bridge.decide({"call_id": "c_2", "approve": False, "rule": True})
    assert core.calls[-1] == (
        "decide",
        ("c_2", False),
        {"remember": False, "by": "popup", "rule": True},
    )
    bridge.update_session({"session_id": "s_1", "title": "New"})
    assert core.calls[-1] == ("update_session", ("s_1",), {"title": "New"})
    bridge.update_settings({"patch": {"theme": "dark"}})
    assert core.calls[-1] == ("update_settings", ({"theme": "dark"},), {})
    assert bridge.status(None)["ok"] is True


@pytest.mark.parametrize(
    ("method", "payload"),
    [
        ("get_session", {}),
        ("get_session", {"session_id": "../etc"}),
        ("send_message", {"session_id": "s_1", "text": ""}),
        ("send_message", {"session_id": "s_1", "text": "x", "extra": 1}),
        ("decide", {"call_id": "c_1", "approve": "yes please"}),
        ("pull_model", {"name": "bad name; rm -rf"}),
        ("update_settings", {"patch": "theme=dark"}),
        ("get_session", "s_1"),
    ],
)
def test_invalid_payloads_are_refused_before_core(
    core: FakeCore, method: str, payload: Any
) -> None:
    result = getattr(Bridge(core), method)(payload)  # type: ignore[arg-type]
    assert result["ok"] is False and result["code"] == "invalid_request"
    assert core.calls == []


def test_errors_become_sentences(core: FakeCore) -> None:
    bridge = Bridge(core)  # type: ignore[arg-type]
    assert bridge.get_session({"session_id": "missing"}) == {
        "ok": False,
        "code": "not_found",
        "error": "no chat 'missing'",
    }
    busy = bridge.send_message({"session_id": "s_1", "text": "busy"})
    assert busy["ok"] is False and busy["code"] == "busy" and "still answering" in busy["error"]


def test_window_actions_and_links(core: FakeCore) -> None:
    opened: list[str] = []
    hidden: list[bool] = []
    bridge = Bridge(core, hide_window=lambda: hidden.append(True), open_url=opened.append)  # type: ignore[arg-type]
    assert bridge.hide()["ok"] and hidden == [True]
    assert bridge.open_link({"url": "https://example.com/a"})["ok"]
    assert opened == ["https://example.com/a"]
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "http://"):
        assert bridge.open_link({"url": bad})["ok"] is False
    assert opened == ["https://example.com/a"]
    assert bridge.pick_folder() == {"ok": True, "data": {"supported": False, "path": None}}
    assert Bridge(core, pick_folder=lambda: "/tmp/x").pick_folder()["data"] == {  # type: ignore[arg-type]
        "supported": True,
        "path": "/tmp/x",
    }
    assert Bridge(core).hide()["code"] == "unsupported"  # type: ignore[arg-type]
    assert bridge.set_api_key({"key": "sk-1"})["ok"] is True
    assert core.calls[-1] == ("set_api_key", ("sk-1",), {})


def test_checked_link() -> None:
    assert checked_link(" mailto:a@b.c ") == "mailto:a@b.c"
    with pytest.raises(InvalidRequest):
        checked_link("ftp://x")


def test_nothing_but_commands_is_public() -> None:
    # pywebview exposes every public attribute to the page.
    public = {name for name in dir(Bridge(FakeCore())) if not name.startswith("_")}  # type: ignore[arg-type]
    assert "core" not in public
    assert public >= {"send_message", "decide", "open_link", "hide", "pick_folder"}


def test_hotkey_status_reports_the_desktop_session(core: FakeCore) -> None:
    assert Bridge(core).hotkey_status()["data"]["supported"] is None  # type: ignore[arg-type]
    wayland = Bridge(core, hotkey_support=lambda: {"supported": False, "session": "wayland"})  # type: ignore[arg-type]
    assert wayland.hotkey_status()["data"] == {"supported": False, "session": "wayland"}
