"""An idle check (``ping_s``) an older version wrote never costs a server.

Older versions took any value from 0 to 3600 s; the rules now take 0 (off) or 5 to 3600. A
settings file on disk with 2.5 loads as 5 (and the next save writes 5); a value no version
took (negative, over an hour, not a number) is dropped, so the server probes at the default.
New input the form sends is still refused (tests/mcp/test_config.py).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import fake_entry
from tests.mcp.test_cli import (
    cli,  # noqa: F401 (a fixture: metona-tray mcp as a subprocess)
    settings_file,
    write_servers,
)
from tray_app.core.mcp_settings import prepare_servers
from tray_app.mcp.config import PING_MAX_S, PING_MIN_S, parse_servers
from tray_app.store.settings import (
    MCP_PING_MAX_S,
    MCP_PING_MIN_S,
    load_settings,
    save_settings,
)

NAME = "本地 服务"  # a name the rules take, in Chinese


def test_the_store_knows_the_same_bounds_as_the_server_check() -> None:
    assert (MCP_PING_MIN_S, MCP_PING_MAX_S) == (PING_MIN_S, PING_MAX_S)


def write_file(path: Path, servers: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "mcp_servers": servers}), encoding="utf-8")


def test_a_short_idle_check_in_an_old_file_loads_as_the_minimum_and_is_saved_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    file = tmp_path / "settings.json"
    write_file(file, {NAME: {"command": "x", "ping_s": 2.5}, "关": {"command": "y", "ping_s": 0}})
    with caplog.at_level(logging.INFO):
        settings = load_settings(file)
    servers, errors = parse_servers(settings.mcp_servers)
    assert errors == {}
    by_name = {s.name: s for s in servers}
    assert by_name[NAME].ping_s == 5.0
    assert by_name["关"].ping_s == 0  # off stays off
    assert "below the minimum" in caplog.text

    save_settings(settings, file)
    on_disk = json.loads(file.read_text(encoding="utf-8"))["mcp_servers"]
    assert on_disk[NAME]["ping_s"] == 5.0 and on_disk["关"]["ping_s"] == 0
    # The page sends the server back unchanged: saved, not refused.
    kept, problems = prepare_servers(dict(settings.mcp_servers), settings.mcp_servers)
    assert problems == {} and kept[NAME]["ping_s"] == 5.0


@pytest.mark.parametrize(
    ("written", "loaded"),
    [
        ("-1", None),
        ("-0.5", None),
        ("1e308", None),
        ("1e999", None),  # Python's json reads it as infinity
        ("NaN", None),
        ("true", None),
        ('"abc"', None),
        ('"\u202e5"', None),
        ("[5]", None),
        ('"2.5"', 5.0),
        ('"12"', 12.0),
        ("0.001", 5.0),
        ("4.99", 5.0),
        ("3600", 3600),
        ("3600.5", None),
    ],
)
def test_an_idle_check_no_version_took_falls_back_to_the_default(
    tmp_path: Path, written: str, loaded: float | None
) -> None:
    file = tmp_path / "settings.json"
    file.write_text(
        f'{{"mcp_servers": {{"{NAME}": {{"command": "x", "ping_s": {written}}}}}}}',
        encoding="utf-8",
    )
    settings = load_settings(file)
    entry = settings.mcp_servers[NAME]
    assert entry.get("ping_s") == loaded
    servers, errors = parse_servers(settings.mcp_servers)
    assert errors == {}  # the server is kept, whatever its idle check said
    assert servers[0].ping_s == (30.0 if loaded is None else loaded)


def test_mcp_list_shows_a_server_with_an_old_idle_check_as_usable(
    cli: Any,  # noqa: F811
    metona_home: Path,
    tmp_path: Path,
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    write_servers(metona_home, {NAME: fake_entry(marks, ping_s=2.5)})
    done = cli("list")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{NAME}  [stdio, ready, trust: ask]" in done.stdout
    assert "invalid" not in done.stdout and "error" not in done.stdout
    zh = cli("list", lang="zh_CN.UTF-8")
    assert zh.returncode == 0, zh.stdout + zh.stderr
    assert f"{NAME}  [stdio，就绪，信任：ask]" in zh.stdout
    assert "配置无效" not in zh.stdout
    # Listing reads the file; it does not write it (the next save does).
    stored = json.loads(settings_file(metona_home).read_text(encoding="utf-8"))
    assert stored["mcp_servers"][NAME]["ping_s"] == 2.5
