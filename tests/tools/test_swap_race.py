"""Containment holds while a folder on the path is swapped for a link to an outside folder.

Another thread swaps ``work/sub`` for a symbolic link to ``outside`` (same names, marked
content) in a tight loop while each tool runs on paths below ``sub``, many times. A call may
fail (the folder moved under it); it may never return, list, write or remove outside things.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.tools.conftest import tree
from tests.tools.swap_rig import OUTSIDE_MARK, OUTSIDE_SIZE, SwapWorld, build, swapping
from tray_app.tools.toolbox import Toolbox

ROUNDS = 400  # calls per tool: thousands in all, well under a minute


@pytest.fixture
def world(layout: Any) -> SwapWorld:
    return build(layout.work, layout.outside)


def _no_mark(result: dict[str, Any]) -> None:
    assert OUTSIDE_MARK not in json.dumps(result, ensure_ascii=False), result


def _run(box: Toolbox, world: SwapWorld, tool: str, args: dict[str, Any]) -> list[bool]:
    """``ROUNDS`` calls under the swapper, each checked for an escape; their outcomes."""
    before = tree(world.outside)
    outcomes = []
    with swapping(world):
        for _ in range(ROUNDS):
            result = box.execute(tool, args)
            _no_mark(result)
            outcomes.append(bool(result.get("success")))
    assert world.swaps > 0
    assert tree(world.outside) == before
    return outcomes


def test_read_file_never_returns_outside_content(box: Toolbox, world: SwapWorld) -> None:
    outcomes = _run(box, world, "read_file", {"path": "sub/deep/y.txt"})
    assert any(outcomes)  # the swapper leaves room for real answers too


def test_read_multiple_files_never_returns_outside_content(box: Toolbox, world: SwapWorld) -> None:
    _run(box, world, "read_multiple_files", {"paths": ["sub/x.txt", "sub/deep/y.txt"]})


@pytest.mark.parametrize("target", ["sub/x.txt", "sub/deep", "sub"])
def test_get_file_info_never_describes_the_outside(
    box: Toolbox, world: SwapWorld, target: str
) -> None:
    seen: list[dict[str, Any]] = []
    before = tree(world.outside)
    with swapping(world):
        for _ in range(ROUNDS // 2):
            result = box.execute("get_file_info", {"path": target})
            if result.get("success"):
                seen.append(result)
    assert tree(world.outside) == before
    sizes = {r["size"] for r in seen if r["type"] == "file"}
    assert OUTSIDE_SIZE not in sizes
    assert all(r["type"] != "symlink" or r["path"].endswith("/sub") for r in seen)
    inside_entries = len(list(Path(world.sub).iterdir())) if target == "sub" else None
    if inside_entries is not None:
        assert {r.get("entries") for r in seen if r["type"] == "directory"} <= {
            inside_entries,
            None,
        }
