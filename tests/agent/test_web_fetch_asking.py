"""web_fetch through a real Core, the fake Ollama server and a real site on 127.0.0.1: a URL the
person wrote in the chat is fetched without asking, any other asks in every mode but full auto."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn
from tests.fakes.web_site import Page, Site, web_site
from tray_app.agent.vouched_urls import vouched

PAGE = "<html><body><h1>标题 😀</h1><p>页面正文 \u202eevil\u202c</p></body></html>".encode()


@pytest.fixture
def site() -> Iterator[Site]:
    with web_site({"/doc": Page(PAGE), "/secret": Page(b"secret page")}) as running:
        yield running


def fetch_rig(make_rig: Any, site: Site, mode: str = "all_writes") -> Rig:
    rig: Rig = make_rig(
        default_registry=True, web_allowed_hosts=[site.host], confirmation_mode=mode
    )
    return rig


def answers(rig: Rig, index: int) -> list[dict[str, Any]]:
    messages = rig.fake.requests[index]["messages"]
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


def test_a_url_the_person_wrote_is_fetched_without_asking(make_rig: Any, site: Site) -> None:
    rig = fetch_rig(make_rig, site)
    url = f"{site.base}/doc"
    rig.fake.script(tool_turn([("web_fetch", {"url": url})]), text_turn("done"))
    _, turn = rig.send(f"请读一下 {url}，谢谢。")
    assert rig.finish(turn).stop_reason == "done"
    assert rig.log.of_type("approval_needed") == []
    (answer,) = answers(rig, 1)
    assert answer["success"] and "# 标题 😀" in answer["text"] and "页面正文" in answer["text"]


@pytest.mark.parametrize("mode", ["read_only", "all_writes", "delete_only"])
def test_a_url_the_model_chose_asks_and_a_no_fetches_nothing(
    make_rig: Any, site: Site, mode: str
) -> None:
    rig = fetch_rig(make_rig, site, mode)
    written = f"{site.base}/doc"
    chosen = f"{site.base}/secret"
    rig.fake.script(tool_turn([("web_fetch", {"url": chosen})]), text_turn("done"))
    _, turn = rig.send(f"summarise {written}")
    asked = rig.log.wait_type("approval_needed")
    assert asked.preview["url"] == chosen and asked.preview["text"] == chosen
    rig.core.decide(asked.call_id, False)
    assert rig.finish(turn).stop_reason == "done"
    assert site.requests == []


def test_full_auto_fetches_any_url_without_asking(make_rig: Any, site: Site) -> None:
    rig = fetch_rig(make_rig, site, "full_auto")
    rig.fake.script(tool_turn([("web_fetch", {"url": f"{site.base}/secret"})]), text_turn("ok"))
    _, turn = rig.send("look around")
    assert rig.finish(turn).stop_reason == "done"
    assert rig.log.of_type("approval_needed") == []
    assert answers(rig, 1)[0]["text"] == "secret page"


def test_only_a_whole_url_the_person_wrote_is_vouched_for() -> None:
    said = ["see https://Example.com/docs/page.html, and (https://a.example/x)。"]
    assert vouched("https://example.com/docs/page.html", said)
    assert vouched("https://a.example/x/", said)
    for url in (
        "https://example.com/docs/page.html/../../admin",
        "https://example.com/docs",
        "https://example.com.evil.example/docs/page.html",
        "http://example.com/docs/page.html?leak=secret",
    ):
        assert not vouched(url, said), url
    assert not vouched("https://x.example/", ["x" * 1_000_000 + " https://y.example/"])
