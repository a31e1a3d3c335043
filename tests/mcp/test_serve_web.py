"""``metona-tray mcp serve`` offers web_fetch as an open-world read: with --yes a client's fetch
of a site allowed in the settings returns its text; with no flag and no app nothing is sent."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import pytest

from tests.fakes.web_site import Page, web_site
from tests.mcp.serve_rig import serve, write_settings

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("flags", [("--yes",), ()])
async def test_serve_fetches_with_yes_and_sends_nothing_without(
    metona_home: Path, work: Path, errlog: IO[str], flags: tuple[str, ...]
) -> None:
    page = "<html><body><h1>远程 😀</h1><p>text \u202eevil</p></body></html>".encode()
    with web_site({"/p": Page(page)}) as site:
        write_settings(metona_home, {"allowed_dirs": [str(work)], "web_allowed_hosts": [site.host]})
        async with serve(metona_home, work, errlog, *flags) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            hints = tools["web_fetch"].annotations
            assert hints.read_only_hint is True and hints.open_world_hint is True
            assert tools["read_file"].annotations.open_world_hint is False
            done = await client.call_tool("web_fetch", {"url": f"{site.base}/p"})
        if flags:
            assert done.is_error is False, done.content
            assert "# 远程 😀" in done.content[0].text
            assert site.requests == [("/p", site.host)]
        else:
            assert done.is_error is True
            assert site.requests == []
