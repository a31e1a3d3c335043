"""Folder walks hold containment while a folder on the path is swapped for a link outside.

As in ``test_swap_race``: another thread swaps ``work/sub`` with a link to an outside folder
holding the same names, one of them the outside mark; listings, trees and searches below
``sub`` (or over the whole root) may fail, never name or read an outside entry.
"""

from __future__ import annotations

import json
import os
import resource
from pathlib import Path
from typing import Any

import pytest

from tests.tools.conftest import tree
from tests.tools.swap_rig import OUTSIDE_MARK, SwapWorld, build, swapping
from tray_app.tools.toolbox import Toolbox

ROUNDS = 150

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_directory", {"path": "sub"}),
    ("list_directory", {"path": "sub/deep"}),
    ("list_directory", {"path": ".", "recursive": True}),
    ("directory_tree", {"path": "sub"}),
    ("directory_tree", {"path": "."}),
    ("search_files", {"path": "sub", "query": "OUTSIDE", "search_type": "content"}),
    ("search_files", {"path": ".", "query": "*", "search_type": "filename"}),
    ("search_files", {"path": ".", "query": "inside", "search_type": "content"}),
]


@pytest.fixture
def world(layout: Any) -> SwapWorld:
    return build(layout.work, layout.outside)


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[f"{t}-{a['path']}" for t, a in CALLS])
def test_walks_never_show_outside_names_or_lines(
    box: Toolbox, world: SwapWorld, tool: str, args: dict[str, Any]
) -> None:
    before = tree(world.outside)
    answered = 0
    with swapping(world):
        for _ in range(ROUNDS):
            result = box.execute(tool, args)
            assert OUTSIDE_MARK not in json.dumps(result, ensure_ascii=False), result
            answered += bool(result.get("success"))
    assert world.swaps > 0 and answered > 0
    assert tree(world.outside) == before


def test_a_walk_keeps_few_descriptors_open(box: Toolbox, layout: Any) -> None:
    """Thousands of folders, deep and wide, walked with room for only 24 more descriptors."""
    top = layout.work / "many"
    for a in range(40):
        deep = top / f"a{a}" / "b" / "c" / "d" / "e" / "f" / "g" / "h"
        deep.mkdir(parents=True)
        (deep / "leaf.txt").write_text("leaf 叶\n")
        for b in range(50):
            (top / f"a{a}" / f"w{b}").mkdir()
    in_use = len(os.listdir("/proc/self/fd"))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (in_use + 24, hard))
    try:
        listed = box.execute("list_directory", {"path": "many", "recursive": True})
        found = box.execute(
            "search_files", {"path": "many", "query": "leaf", "search_type": "content"}
        )
        trimmed = box.execute("directory_tree", {"path": "many", "max_depth": 10})
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert listed["success"] and trimmed["success"], (listed, trimmed)
    assert found["success"] and len(found["results"]) == 40, found
    assert len(os.listdir("/proc/self/fd")) <= in_use + 1
    assert Path(found["results"][0]["path"]).name == "leaf.txt"
