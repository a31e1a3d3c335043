"""Tests wait one way: tests/support/waiting.py (``eventually`` / ``stays``).

A loop around ``sleep`` is a hand-written poll: it hides its timeout and says nothing useful
when it runs out, and every copy drifts (the ~12 copies this replaced all differed). An
upper bound on elapsed time is a speed claim that fails on a busy machine; speed belongs in
``make bench``, and a hang is caught by a ``pytest.mark.timeout`` or by checking the outcome.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

#: Where sleeping in a loop is the point: the helper itself, the fake servers pacing a stream
#: and the page harness's event pump.
MAY_SLEEP_IN_LOOPS = {
    TESTS / "support" / "waiting.py",
    TESTS / "web_harness" / "server.py",
    *(TESTS / "fakes").rglob("*.py"),
}
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns"}


def sources() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(TESTS.rglob("*.py")):
        if "vendor" not in path.parts:
            yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def is_call_to(node: ast.AST, names: set[str], owners: set[str]) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    return node.func.attr in names and isinstance(owner, ast.Name) and owner.id in owners


def sleeps_in_loops(tree: ast.Module) -> Iterator[int]:
    for loop in ast.walk(tree):
        if isinstance(loop, ast.While):
            for node in ast.walk(loop):
                if is_call_to(node, {"sleep"}, {"time", "asyncio"}):
                    yield node.lineno


def upper_bounds_on_time(tree: ast.Module) -> Iterator[int]:
    for check in ast.walk(tree):
        if not isinstance(check, ast.Assert):
            continue
        for node in ast.walk(check.test):
            below = isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.Lt, ast.LtE))
            if below and any(is_call_to(n, CLOCKS, {"time"}) for n in ast.walk(node.left)):
                yield check.lineno


def test_no_hand_written_polling_loops() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{line}"
        for path, tree in sources()
        if path not in MAY_SLEEP_IN_LOOPS
        for line in sleeps_in_loops(tree)
    ]
    assert found == [], f"sleep in a loop: use tests.support.waiting instead: {found}"


def test_no_upper_bounds_on_elapsed_time() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{line}"
        for path, tree in sources()
        for line in upper_bounds_on_time(tree)
    ]
    assert found == [], f"a speed claim in a test (make bench measures speed): {found}"


def test_the_rules_find_what_they_forbid() -> None:
    poll = ast.parse("while not done():\n    time.sleep(0.01)\n")
    timed = ast.parse("assert time.monotonic() - started < 5\n")
    lower = ast.parse("assert time.monotonic() - started >= 0.25\n")
    assert list(sleeps_in_loops(poll)) == [2]
    assert list(upper_bounds_on_time(timed)) == [1]
    assert list(upper_bounds_on_time(lower)) == []
