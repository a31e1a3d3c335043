"""A server name the rules refuse gets a code (``mcp/config.py`` ``name_problem``) that the
page and the terminal say in the user's language; the rules themselves stay as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.test_cli import (
    cli,  # noqa: F401 (a fixture: metona-tray mcp as a subprocess)
    write_servers,
)
from tray_app.core.mcp_settings import prepare_servers
from tray_app.mcp.config import name_problem, parse_servers


@pytest.mark.parametrize(
    "name", ["时间 工具", "a", "a" * 64, "é-1.2_x", "Сервер", "٣ خادم", "服务器 2"]
)
def test_names_the_rules_took_are_still_taken(name: str) -> None:
    assert name_problem(name) is None
    servers, errors = parse_servers({name: {"command": "x"}})
    assert errors == {} and servers[0].name == name


@pytest.mark.parametrize(
    ("name", "code", "params"),
    [
        ("", "name_empty", {}),
        ("服务器😀", "name_bad_char", {"char": "😀", "codepoint": "U+1F600"}),
        ("报告\u202eexe", "name_bad_char", {"char": "\u202e", "codepoint": "U+202E"}),
        ("zero\u200bwidth", "name_bad_char", {"char": "\u200b", "codepoint": "U+200B"}),
        ("bad/name", "name_bad_char", {"char": "/", "codepoint": "U+002F"}),
        ("trailing\n", "name_bad_char", {"char": "\n", "codepoint": "U+000A"}),
        ("-服务器", "name_bad_start", {}),
        (" lead", "name_bad_start", {}),
        ("长" * 65, "name_too_long", {"max": 64, "count": 65}),
        ("长" * 100_000 + "😀", "name_bad_char", {"char": "😀", "codepoint": "U+1F600"}),
    ],
)
def test_a_refused_name_has_a_code_and_params(name: str, code: str, params: dict[str, Any]) -> None:
    assert name_problem(name) == (code, params)
    codes: dict[str, dict[str, Any]] = {}
    servers, errors = parse_servers({name: {"command": "x"}}, codes)
    assert servers == [] and name in errors  # the detail stays in English for the logs
    assert codes == {name: {"code": code, "params": params}}
    form: dict[str, dict[str, Any]] = {}
    _, problems = prepare_servers({name: {"command": "x"}}, {}, form)
    assert list(problems) == [f"mcp_servers.{name}.name"]
    assert form == {f"mcp_servers.{name}.name": {"code": code, "params": params}}


def test_other_refusals_carry_no_code() -> None:
    codes: dict[str, dict[str, Any]] = {}
    _, errors = parse_servers({"好": {"command": "x", "ping_s": 1}}, codes)
    assert "好" in errors and codes == {}


EN = (
    "  error: A server name cannot contain \u201c\U0001f600\u201d (U+1F600): use letters or "
    "digits of any script, spaces, \u201c.\u201d, \u201c_\u201d or \u201c-\u201d."
)
ZH = (
    "  错误：服务器名称不能包含\u201c\U0001f600\u201d（U+1F600）：只能使用任何文字的字母或数字、"
    "空格、\u201c.\u201d、\u201c_\u201d或\u201c-\u201d。"
)


def test_mcp_list_says_why_a_name_is_refused_in_the_terminals_language(
    cli: Any,  # noqa: F811
    metona_home: Path,
) -> None:
    write_servers(
        metona_home,
        {
            "服务器😀": {"command": "x"},
            "报告\u202eexe": {"command": "x"},
            "长" * 65: {"command": "x"},
        },
    )
    zh = cli("list", lang="zh_CN.UTF-8")
    assert zh.returncode == 1, zh.stdout + zh.stderr  # invalid servers: not all usable
    assert "服务器😀  [?，配置无效，信任：-]" in zh.stdout
    assert ZH in zh.stdout.splitlines()
    assert "服务器名称不能包含\u201c⟨U+202E⟩\u201d（U+202E）" in zh.stdout
    assert "服务器名称最多 64 个字符；此名称有 65 个。" in zh.stdout
    assert "\u202e" not in zh.stdout and "a server name" not in zh.stdout

    en = cli("list")
    assert EN in en.stdout.splitlines()
    assert "A server name is at most 64 characters; this one has 65." in en.stdout
    assert "\u202e" not in en.stdout

    rows = {r["name"]: r for r in json.loads(cli("list", "--json", lang="zh_CN.UTF-8").stdout)}
    assert rows["服务器😀"]["error_code"] == "name_bad_char"
    assert rows["服务器😀"]["error_params"] == {"char": "😀", "codepoint": "U+1F600"}
    assert "U+1F600" in rows["服务器😀"]["error"]  # --json keeps the English detail


def test_mcp_import_says_why_a_name_is_refused_and_saves_nothing(
    cli: Any,  # noqa: F811
    metona_home: Path,
    tmp_path: Path,
) -> None:
    claude = tmp_path / "claude_desktop_config.json"
    servers = {"好": {"command": "x"}, "服务器\u202e😀": {"command": "x"}}
    claude.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    zh = cli("import", str(claude), lang="zh_CN.UTF-8")
    assert zh.returncode == 2, zh.stdout + zh.stderr
    assert (
        "服务器\u201c服务器⟨U+202E⟩😀\u201d：服务器名称不能包含\u201c⟨U+202E⟩\u201d（U+202E）"
        in zh.stderr
    )
    assert "\u202e" not in zh.stderr and "server name" not in zh.stderr
    en = cli("import", str(claude))
    assert en.returncode == 2
    assert (
        "server \u201c服务器⟨U+202E⟩😀\u201d: A server name cannot contain \u201c⟨U+202E⟩\u201d"
        " (U+202E)" in en.stderr
    )
    assert not (metona_home / "config" / "settings.json").exists()  # nothing imported
