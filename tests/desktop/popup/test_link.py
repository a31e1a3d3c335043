"""The tray-popup link: JSON both ways, requests answered, the other side's end noticed."""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import pytest

from tray_app.desktop.popup.link import Link, LinkClosed


def pair() -> tuple[Any, Any]:
    return multiprocessing.get_context("spawn").Pipe(duplex=True)


def test_requests_are_answered_and_hard_text_survives() -> None:
    a_conn, b_conn = pair()
    seen: list[dict[str, Any]] = []
    b: Link

    def on_b(message: dict[str, Any]) -> None:
        seen.append(message)
        if message["op"] == "echo":
            b.answer(message, {"text": message["text"]})

    a = Link(a_conn, lambda m: None).start()
    b = Link(b_conn, on_b).start()
    text = "中文 👩🏽‍💻 \u202e \u2028 \x00"
    assert a.request({"op": "echo", "text": text}, timeout=5) == {"text": text}
    a.send({"op": "note"})
    a.close()
    b.closed.wait(5)
    assert [m["op"] for m in seen] == ["echo", "note"]


def test_a_closed_side_wakes_waiting_requests_and_refuses_sends() -> None:
    a_conn, b_conn = pair()
    closed = threading.Event()
    a = Link(a_conn, lambda m: None, on_closed=closed.set).start()
    b = Link(b_conn, lambda m: None).start()  # never answers
    result: list[BaseException] = []

    def ask() -> None:
        try:
            a.request({"op": "slow"}, timeout=30)
        except BaseException as exc:
            result.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    b.close()  # the other process is gone
    asker.join(10)
    assert result and isinstance(result[0], LinkClosed)
    assert closed.wait(5)
    with pytest.raises(LinkClosed):
        a.send({"op": "late"})
