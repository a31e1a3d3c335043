"""``metona-tray chat`` with web_fetch, as a subprocess against fake Ollama and a real site on
127.0.0.1 (allowed in its settings): the URL the person typed is fetched without asking and
arrives as text; a URL the model chose, with no one to ask, sends nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tests.fakes.web_site import Page, Site, web_site

PAGE = (
    "<html><head><title>页 😀</title></head><body><h1>你好</h1><p>正文 \u202eevil</p></body></html>"
)


def _chat(fake: FakeOllama, home: Path, tmp: Path, site: Site, stdin: str) -> Any:
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    settings = {"web_allowed_hosts": [site.host]}
    (config / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    return run_cli(chat_command(fake.url, work), cli_env(home, tmp / "home"), stdin)


def _answers(fake: FakeOllama) -> list[dict[str, Any]]:
    messages = fake.chat_requests[-1]["messages"]
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


def test_the_typed_url_arrives_as_text_and_another_is_not_fetched(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    pages = {"/doc": Page(PAGE.encode()), "/other": Page(b"other page")}
    with web_site(pages) as site:
        url = f"{site.base}/doc"
        fake_ollama.script(
            tool_turn([("web_fetch", {"url": url})]),
            tool_turn([("web_fetch", {"url": f"{site.base}/other"})]),
            text_turn("读完了。"),
        )
        result = _chat(fake_ollama, metona_home, tmp_path, site, f"读 {url}\n/exit\n")
        assert result.returncode == 0, result.stderr
        assert "读完了。" in result.stdout
        fetched, refused = _answers(fake_ollama)
        assert fetched["success"] and fetched["title"] == "页 😀"
        assert "# 你好" in fetched["text"] and "正文" in fetched["text"]
        assert refused["success"] is False
        assert "denied web_fetch: no terminal to ask" in result.stderr, result.stderr
        assert f"characters of {url}" in result.stderr, result.stderr
        assert site.requests == [("/doc", site.host)]
