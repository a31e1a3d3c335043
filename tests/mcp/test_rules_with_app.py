"""`metona-tray rules` while the app runs goes through it (its instance socket), so the rule
applies to its very next call; a deny rule made so holds under `mcp serve --yes-all`. The
"app" is a headless Core behind the real socket, as in serve_rig.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

import pytest

from tests.mcp.conftest import ROOT
from tests.mcp.serve_rig import HeadlessApp, serve, write_settings

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def work(tmp_path: Path, metona_home: Path) -> Path:
    folder = tmp_path / "工作 🚀"
    folder.mkdir()
    write_settings(metona_home, {"allowed_dirs": [str(folder)]})
    return folder


def rules_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(METONA_HOME=str(home), PYTHONPATH=str(ROOT), LANG="en_US.UTF-8")
    env.pop("DISPLAY", None)
    return subprocess.run(
        [sys.executable, "-m", "tray_app", "rules", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
    )


async def test_a_deny_added_through_the_app_holds_under_yes_all(
    app: HeadlessApp, metona_home: Path, work: Path, errlog: IO[str]
) -> None:
    added = rules_cli(metona_home, "add", "deny", "write_file", "--folder", str(work))
    assert added.returncode == 0, added.stderr
    # In force in the running app at once, not only in the file.
    (kept,) = app.running.core.get_settings()["tool_rules"]
    assert (kept["tool"], kept["folder"], kept["action"]) == ("write_file", str(work), "deny")
    async with serve(metona_home, work, errlog, "--yes-all") as client:
        refused = await client.call_tool("write_file", {"path": "x.md", "content": "no"})
    assert refused.is_error is True
    assert "permission rules deny write_file" in refused.content[0].text
    assert not (work / "x.md").exists()
    assert app.pending() == []
    # Removed through the app too: the list is empty there at once.
    assert rules_cli(metona_home, "remove", "1").returncode == 0
    assert app.running.core.get_settings()["tool_rules"] == []
