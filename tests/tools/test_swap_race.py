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
from tray_app.tools.journal import snapshot
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


WRITE_ROUNDS = 300


@pytest.fixture
def spare_world(layout: Any) -> SwapWorld:
    return build(layout.work, layout.outside, spares=WRITE_ROUNDS)


def _changes(box: Toolbox, world: SwapWorld, calls: list[tuple[str, dict[str, Any]]]) -> int:
    """Run the calls under the swapper; the outside folder must not change at all. Returns
    how many succeeded."""
    before = tree(world.outside)
    done = 0
    with swapping(world):
        for tool, args in calls:
            result = box.execute(tool, args)
            _no_mark(result)
            done += bool(result.get("success"))
    assert world.swaps > 0
    assert tree(world.outside) == before
    return done


def test_write_file_never_writes_outside(box: Toolbox, world: SwapWorld) -> None:
    calls = [
        ("write_file", {"path": f"sub/deep/w{n % 7}.txt", "content": f"{n} 写 🎈\n"})
        for n in range(WRITE_ROUNDS)
    ]
    calls += [
        ("write_file", {"path": f"sub/new{n}/w.txt", "content": "made\n"}) for n in range(100)
    ]
    assert _changes(box, world, calls) > 0


def test_create_directory_never_creates_outside(box: Toolbox, world: SwapWorld) -> None:
    calls = [("create_directory", {"path": f"sub/deep/d{n}/e"}) for n in range(WRITE_ROUNDS)]
    assert _changes(box, world, calls) > 0


def test_edit_file_never_edits_outside(box: Toolbox, world: SwapWorld) -> None:
    before = tree(world.outside)
    edits = 0
    words = ["inside", "INSIDE"]
    with swapping(world):
        for _ in range(WRITE_ROUNDS):
            old, new = words[edits % 2], words[(edits + 1) % 2]
            args = {"path": "sub/deep/y.txt", "edits": [{"old_text": old, "new_text": new}]}
            result = box.execute("edit_file", args)
            _no_mark(result)
            edits += bool(result.get("success"))
    assert tree(world.outside) == before
    assert edits > 0


def test_move_file_never_moves_outside_things(box: Toolbox, spare_world: SwapWorld) -> None:
    (spare_world.sub / "moved").mkdir()
    calls = [
        ("move_file", {"source": f"sub/deep/s{n}.txt", "destination": f"sub/moved/s{n}.txt"})
        for n in range(WRITE_ROUNDS // 2)
    ]
    calls += [
        ("move_file", {"source": "sub/x.txt", "destination": f"sub/deep/s{n}.txt"})
        for n in range(WRITE_ROUNDS // 2, WRITE_ROUNDS)
    ]
    assert _changes(box, spare_world, calls) > 0


def test_delete_file_never_deletes_outside_things(
    box: Toolbox, spare_world: SwapWorld, test_trash: Any
) -> None:
    calls = [("delete_file", {"path": f"sub/deep/s{n}.txt"}) for n in range(WRITE_ROUNDS)]
    assert _changes(box, spare_world, calls) > 0
    assert not [p for p in spare_world.sub.rglob("*") if "metona-trash" in p.name]


def test_the_journal_never_keeps_an_outside_file(world: SwapWorld, tmp_path: Path) -> None:
    """What Undo would bring back into the folder: a copy taken under the swap is the
    inside file's, or none (the call then fails), never the outside one."""
    kept = 0
    with swapping(world):
        for n in range(ROUNDS):
            blobs = tmp_path / "blobs" / str(n)
            try:
                state, _ = snapshot.capture(world.sub / "x.txt", blobs, deep=True, budget=10**6)
            except OSError:
                continue
            assert state["kind"] == "file" and state["size"] != OUTSIDE_SIZE
            assert OUTSIDE_MARK not in (blobs / "0").read_text()
            kept += 1
    assert world.swaps > 0 and kept > 0
