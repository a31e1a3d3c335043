"""``metona-tray mcp list | import | test`` as a user runs them: real subprocesses against the
in-repo MCP server, in English and Chinese."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import ROOT, fake_entry


@pytest.fixture
def cli(metona_home: Path, tmp_path: Path) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update(METONA_HOME=str(metona_home), NO_COLOR="1", PYTHONPATH=str(ROOT), LANG="C.UTF-8")
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)

    def run(*args: str, lang: str | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "tray_app", "mcp", *args],
            input="",
            capture_output=True,
            text=True,
            env={**env, "LANG": lang} if lang else env,
            cwd=tmp_path,
            timeout=120,
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done

    return run


def settings_file(home: Path) -> Path:
    return home / "config" / "settings.json"


def write_servers(home: Path, servers: dict[str, Any]) -> None:
    settings_file(home).parent.mkdir(parents=True, exist_ok=True)
    settings_file(home).write_text(json.dumps({"mcp_servers": servers}), encoding="utf-8")


def test_import_a_claude_desktop_config_then_list_and_test(
    cli: Any, metona_home: Path, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(
        json.dumps(
            {"mcpServers": {"fake": fake_entry(marks), "off": {"command": "x", "enabled": False}}}
        ),
        encoding="utf-8",
    )
    done = cli("import", str(claude))
    assert done.returncode == 0, done.stderr
    assert "Imported 2 server(s)" in done.stdout
    stored = json.loads(settings_file(metona_home).read_text(encoding="utf-8"))["mcp_servers"]
    assert set(stored) == {"fake", "off"}

    listed = cli("list", "--json")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    assert rows["off"]["status"] == "disabled"
    risks = {t["name"]: t["risk"] for t in rows["fake"]["tools"]}
    assert risks["wipe"] == "destructive" and risks["echo"] == "write"

    text = cli("list")
    assert "fake  [stdio, ready, trust: ask]" in text.stdout
    assert "destructive  wipe" in text.stdout
    assert "read, asks   echo" in text.stdout  # it only reads, but the server is not trusted

    stored["fake"]["disabled_tools"] = ["picture"]  # what the Settings switch writes
    settings_file(metona_home).write_text(json.dumps({"mcp_servers": stored}), encoding="utf-8")
    listed = json.loads(cli("list", "--json").stdout)
    tools = {t["name"]: t for r in listed if r["name"] == "fake" for t in r["tools"]}
    assert tools["picture"]["switched_off"] and not tools["echo"]["switched_off"]
    assert tools["echo"]["read_only_asks"] and not tools["wipe"]["read_only_asks"]
    assert "picture (switched off in Settings)" in cli("list").stdout

    tested = cli("test", "fake")
    count = len(rows["fake"]["tools"])  # however many tools the in-repo server has now
    assert tested.returncode == 0
    assert f"fake: started, {count} tools listed, stopped." in tested.stdout
    zh = cli("test", "fake", lang="zh_CN.UTF-8")
    assert f"已启动，列出 {count} 个工具，已停止" in zh.stdout


def test_test_says_what_failed(cli: Any, metona_home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('bad config: 缺少 token', file=sys.stderr)\nsys.exit(4)\n")
    write_servers(
        metona_home,
        {"broken": {"command": sys.executable, "args": [str(broken)], "timeout_s": 3}},
    )
    done = cli("test", "broken")
    assert done.returncode == 1
    assert "broken: did not start: " in done.stdout  # it ended: said at once, not after 3 s
    assert "bad config: 缺少 token" in done.stdout  # the end of its log file
    unknown = cli("test", "nope")
    assert unknown.returncode == 2 and "No MCP server named 'nope'" in unknown.stderr
    hostile = cli("test", "报告\u202e🎉")  # written out as everywhere in the terminal
    assert hostile.returncode == 2, hostile.stderr
    assert "No MCP server named '报告⟨U+202E⟩🎉'" in hostile.stderr, hostile.stderr
    assert "\u202e" not in hostile.stderr and "\\u202e" not in hostile.stderr


def test_a_failing_servers_log_and_name_cannot_drive_the_terminal(
    cli: Any, metona_home: Path, tmp_path: Path
) -> None:
    """`mcp test` prints the end of the server's log: an escape sequence (here one that retitles
    the window) and a bidi override in it, or in the server's name, are written out."""
    broken = tmp_path / "hostile.py"
    broken.write_text(
        "import sys\n"
        "sys.stderr.write('\\x1b]0;pwned\\x07 坏了 \\u202eevil\\tend\\n')\n"
        "sys.exit(4)\n",
        encoding="utf-8",
    )
    entry = {"command": sys.executable, "args": [str(broken)], "timeout_s": 3}
    write_servers(metona_home, {"hostile": entry, "坏\u202e🙂": entry})  # that name is invalid
    done = cli("test", "hostile")
    assert done.returncode == 1, done.stderr
    assert "hostile: did not start: " in done.stdout, done.stdout
    assert "  ⟨U+001B⟩]0;pwned⟨U+0007⟩ 坏了 ⟨U+202E⟩evil\tend" in done.stdout, done.stdout
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "\u202e" not in done.stdout
    listed = cli("list")
    assert "坏⟨U+202E⟩🙂  [" in listed.stdout, listed.stdout
    assert "\u202e" not in listed.stdout and "\x1b" not in listed.stdout, listed.stdout


def test_list_without_servers_and_a_bad_import(cli: Any, tmp_path: Path) -> None:
    done = cli("list")
    assert done.returncode == 0 and "No MCP servers are configured" in done.stdout
    zh = cli("list", lang="zh_CN.UTF-8")
    assert "尚未配置 MCP 服务器" in zh.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"x": {"url": "ftp://host"}}}', encoding="utf-8")
    refused = cli("import", str(bad))
    assert refused.returncode == 2 and "Cannot import" in refused.stderr


@pytest.mark.parametrize(
    ("lang", "missing", "unreachable", "failed"),
    [
        (
            "en_US.UTF-8",
            "its command {} could not be started: not found",
            "nothing answers at {}",
            "failed",
        ),
        ("zh_CN.UTF-8", "无法启动其命令 {}：找不到", "{} 没有回应", "失败"),
    ],
)
def test_a_known_cause_is_said_in_words_and_an_unknown_one_quoted(
    cli: Any,
    metona_home: Path,
    tmp_path: Path,
    lang: str,
    missing: str,
    unreachable: str,
    failed: str,
) -> None:
    """`mcp list` and `mcp test` say why a server did not start in the terminal's language when
    the cause is known (a command the OS cannot find, an address nothing answers at), the
    command written out; an unknown cause keeps its own text, quoted."""
    command = tmp_path / "没有 📦 \u202eevil"  # no such file
    ended = tmp_path / "ends.py"
    ended.write_text("import sys\nsys.exit(4)\n", encoding="utf-8")
    with socket.socket() as closed:  # bound, never listening: a connection is refused
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/mcp"
        write_servers(
            metona_home,
            {
                "缺失": {"command": str(command), "timeout_s": 3},
                "远程": {"url": url, "timeout_s": 3},
                "ends": {"command": sys.executable, "args": [str(ended)], "timeout_s": 3},
            },
        )
        listed = cli("list", lang=lang)
    assert listed.returncode == 1, listed.stderr
    shown = str(command).replace("\u202e", "⟨U+202E⟩")
    rows = listed.stdout.splitlines()
    assert any(row.startswith("缺失  [stdio") and failed in row for row in rows), rows
    assert any(row.endswith(missing.format(shown)) for row in rows), rows
    assert any(row.endswith(unreachable.format(url)) for row in rows), rows
    assert not any("FileNotFoundError" in row or "ConnectError" in row for row in rows), rows
    assert any(row.endswith("“MCPError: Connection closed”") for row in rows), rows
    assert "\u202e" not in listed.stdout and "\\u202e" not in listed.stdout
    tested = cli("test", "缺失", lang=lang)
    assert tested.returncode == 1, tested.stderr
    assert missing.format(shown) in tested.stdout.splitlines()[0], tested.stdout
