"""The red-team corpus: hundreds of attacks and legitimate calls through ``Toolbox.execute``.

Each class runs in a fresh world (``redteam_world.build_world``). For every call: it never
raises, returns a dict with a bool ``success``, ends within a deadline, holds no planted secret
(also not base64-encoded), and has the expected outcome; the approval preview of a refused call
refuses too. After the class: nothing outside the allowed folders was created, changed, removed
or read (sizes, mtimes, hashes, link targets, access times), and every legitimate call worked.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from redteam_args import arguments, encodings, hardlinks_and_git, specials, walks
from redteam_check import Snapshot, atimes_work, run_cases
from redteam_commands import (
    commands,
    commands_disabled,
    legit_commands,
    legit_home,
    protected,
    sandboxed_commands,
)
from redteam_legit import LEGIT, legit_writes
from redteam_paths import home_and_variables, traversal, urls_and_control
from redteam_places import deletes, symlinks, system
from redteam_world import Case, World, build_world

from tests.tools.shell_helpers import bwrap_problem

# name: (policy, cases); the policies are ``World.policy``'s.
ATTACKS: dict[str, tuple[str, Callable[[], list[Case]]]] = {
    "traversal": ("work", traversal),
    "home_and_variables": ("work", home_and_variables),
    "urls_and_control": ("work", urls_and_control),
    "system": ("work", system),
    "symlinks": ("work", symlinks),
    "deletes": ("work", deletes),
    "walks": ("work", walks),
    "arguments": ("work", arguments),
    "encodings": ("work", encodings),
    "specials": ("work", specials),
    "hardlinks_and_git": ("work", hardlinks_and_git),
    "protected": ("home", protected),
    "commands": ("work", commands),
    "commands_disabled": ("off", commands_disabled),
}
CLASSES = {
    **ATTACKS,
    **LEGIT,
    "legit_home": ("home", legit_home),
    "legit_commands": ("work", legit_commands),
}
# Approved, unsandboxed commands may read anything the user can: their reads are not escapes.
READS_ALLOWED = {"commands"}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return build_world(tmp_path, monkeypatch)


def run_class(world: World, kind: str, cases: list[Case], *, reads: bool = True) -> None:
    snapshot = Snapshot(world.watched(kind)).take()
    problems = run_cases(world, world.toolbox(kind), kind, cases)
    problems += [f"outside: {c}" for c in snapshot.changes(reads=reads and atimes_work())]
    assert not problems, f"{len(problems)} of {len(cases)} calls broke a promise:\n" + "\n".join(
        problems[:60]
    )


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_corpus_class(world: World, name: str) -> None:
    kind, build = CLASSES[name]
    run_class(world, kind, build(), reads=name not in READS_ALLOWED)


def test_deletes_without_a_trash_follow_no_link(world: World, test_trash: Any) -> None:
    """Where the platform has no trash, deletes unlink and ``rmtree``: nothing outside changes,
    nothing leaks (the outcomes depend on the order here, so they are not checked)."""
    test_trash.fail = True
    cases = [
        replace(c, expect="any", check=None)
        for c in [*symlinks(), *deletes(), *legit_writes()]
        if c.tool == "delete_file"
    ]
    run_class(world, "work", cases)
    assert not test_trash.items


def test_the_corpus_is_large_and_has_both_halves() -> None:
    counts = {name: len(build()) for name, (_, build) in CLASSES.items()}
    legit = sum(n for name, n in counts.items() if name.startswith("legit"))
    assert sum(counts.values()) - legit > 1000, counts
    assert legit > 100, counts


# ---- run_command in bubblewrap --------------------------------------------------------------


@pytest.fixture
def far() -> Iterator[Path]:
    """A folder outside /tmp (bwrap gives commands a private /tmp, which would hide escapes)."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="metona-redteam-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"no scratch folder outside /tmp: {exc}")
    (folder / "keep.txt").write_text("keep me\n")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_sandboxed_commands_write_nothing_outside_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, far: Path
) -> None:
    problem = bwrap_problem()
    if problem:
        pytest.skip(problem)
    world = build_world(tmp_path, monkeypatch, far=far)
    run_class(world, "sandbox", sandboxed_commands(), reads=False)
