"""``metona-tray mcp import FILE`` with a file it cannot read, as a user runs it: the name written
out (``⟨U+202E⟩``, never the raw direction override nor Python's ``\\u202e``) and the OS's
reason by its errno in the terminal's language."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakes.cli import cli_env, run_cli


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh_CN.UTF-8", "无法导入 {shown}：找不到"),
        ("en_US.UTF-8", "Cannot import {shown}: not found"),
    ],
)
def test_a_missing_file_is_named_written_out_with_its_reason(
    tmp_path: Path, lang: str, said: str
) -> None:
    missing = tmp_path / "配置\u202enosj.json 👋"
    env = cli_env(tmp_path / "metona", tmp_path / "home", lang=lang)
    result = run_cli([sys.executable, "-m", "tray_app", "mcp", "import", str(missing)], env)
    assert result.returncode == 2, result.stderr
    shown = f"{tmp_path}/配置⟨U+202E⟩nosj.json 👋"
    assert result.stderr.splitlines() == [said.format(shown=shown)], result.stderr
    assert "\u202e" not in result.stderr and "Errno" not in result.stderr


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("zh_CN.UTF-8", "无法导入 {shown}：“Expecting ',' delimiter: line 1 column 17 (char 16)”"),
        (
            "en_US.UTF-8",
            "Cannot import {shown}: Expecting ',' delimiter: line 1 column 17 (char 16)",
        ),
    ],
)
def test_a_file_that_is_not_json_keeps_the_parsers_words(
    tmp_path: Path, lang: str, said: str
) -> None:
    broken = tmp_path / "坏\u202e.json"
    broken.write_text('{"mcpServers": 3', encoding="utf-8")
    env = cli_env(tmp_path / "metona", tmp_path / "home", lang=lang)
    result = run_cli([sys.executable, "-m", "tray_app", "mcp", "import", str(broken)], env)
    assert result.returncode == 2, result.stderr
    shown = f"{tmp_path}/坏⟨U+202E⟩.json"
    assert result.stderr.splitlines() == [said.format(shown=shown)], result.stderr
