"""The settings shape: Claude Desktop's mcpServers, our keys, keyring references, import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tray_app.mcp.config import (
    MissingSecret,
    parse_servers,
    read_claude_config,
    resolve_secrets,
)


def test_claude_desktop_entries_parse_with_our_defaults() -> None:
    servers, errors = parse_servers(
        {
            "time": {"command": "uvx", "args": ["mcp-server-time"]},
            "remote": {"url": "https://example.invalid/mcp", "headers": {"X-Key": "keyring:r"}},
            "old": {"url": "http://127.0.0.1:9/sse", "type": "sse"},
        }
    )
    assert errors == {}
    by_name = {s.name: s for s in servers}
    assert by_name["time"].transport == "stdio"
    assert by_name["time"].timeout_s == 60.0
    assert by_name["time"].trust == "ask"
    assert by_name["time"].enabled
    assert by_name["remote"].transport == "http"
    assert by_name["remote"].secret_names() == ["r"]
    assert by_name["old"].transport == "sse"


def test_one_bad_server_costs_only_itself() -> None:
    servers, errors = parse_servers(
        {
            "good": {"command": "x"},
            "时间 工具": {"command": "x"},
            "bidi\u202egood": {"command": "x"},
            "zero\u200bwidth": {"command": "x"},
            "both": {"command": "x", "url": "http://127.0.0.1/"},
            "neither": {"args": []},
            "bad url": {"url": "file:///etc/passwd"},
            "bad/name": {"command": "x"},
            "trust": {"command": "x", "trust": "everything"},
            "list": ["not", "an", "object"],
        }
    )
    assert [s.name for s in servers] == ["good", "时间 工具"]  # any script; no invisible ones
    assert set(errors) == {
        "both", "neither", "bad url", "bad/name", "trust", "list",
        "bidi\u202egood", "zero\u200bwidth",
    }  # fmt: skip
    assert "either a command" in errors["both"]


def test_secrets_come_from_the_keyring_and_are_masked_when_shown() -> None:
    lookups: list[str] = []

    def lookup(user: str) -> str | None:
        lookups.append(user)
        return {"mcp:gh": "s3cret"}.get(user)

    env = {"TOKEN": "keyring:gh", "PLAIN": "in-the-file", "EMPTY": ""}
    assert resolve_secrets(env, lookup) == {"TOKEN": "s3cret", "PLAIN": "in-the-file", "EMPTY": ""}
    assert lookups == ["mcp:gh"]
    with pytest.raises(MissingSecret, match="'nope'"):
        resolve_secrets({"T": "keyring:nope"}, lookup)
    servers, _ = parse_servers({"s": {"command": "x", "env": env}})
    shown = servers[0].public()
    assert shown["env"] == {"TOKEN": "keyring:gh", "PLAIN": "***", "EMPTY": ""}
    assert "in-the-file" not in json.dumps(shown)


def test_a_claude_desktop_file_is_read(tmp_path: Path) -> None:
    file = tmp_path / "claude_desktop_config.json"
    file.write_text(
        json.dumps(
            {"mcpServers": {"时间/x": {"command": "t"}, "fs": {"command": "npx", "args": ["-y"]}}}
        ),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="时间/x"):  # a slash: no file or tool name may hold it
        read_claude_config(file)
    file.write_text(json.dumps({"mcpServers": {"fs": {"command": "npx"}}}), encoding="utf-8")
    assert read_claude_config(file) == {"fs": {"command": "npx"}}
    file.write_text("[1]", encoding="utf-8")
    with pytest.raises(ValueError):
        read_claude_config(file)


@pytest.mark.parametrize("seconds", [0, 5, 30, 45.5, 3600, "12"])
def test_the_idle_check_is_off_or_five_seconds_to_an_hour(seconds: object) -> None:
    servers, errors = parse_servers({"本地 服务": {"command": "x", "ping_s": seconds}})
    assert errors == {} and servers[0].ping_s == float(seconds)  # type: ignore[arg-type]


@pytest.mark.parametrize("seconds", [0.5, 4.99, -1, 3600.5, float("nan"), float("inf"), True])
def test_an_idle_check_outside_the_bounds_is_refused_naming_them(seconds: object) -> None:
    servers, errors = parse_servers({"本地 服务": {"command": "x", "ping_s": seconds}})
    assert servers == []
    assert "0 (off) or 5 to 3600 seconds" in errors["本地 服务"]


def test_the_settings_form_gets_the_idle_checks_error_under_its_field() -> None:
    from tray_app.core.mcp_settings import prepare_servers

    _, errors = prepare_servers({"远程 服务": {"url": "http://127.0.0.1:9/mcp", "ping_s": 1}}, {})
    assert list(errors) == ["mcp_servers.远程 服务.ping_s"]
    assert "0 (off) or 5 to 3600" in errors["mcp_servers.远程 服务.ping_s"]
