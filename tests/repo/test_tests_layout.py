"""Test modules live in folders that mirror the product (tests/cli/, tests/tools/, ...).

The root of tests/ holds only the package marker and the shared conftest; rigs used across
folders live in tests/support/ (or tests/fakes/ for the fake servers), so a reader finds a
test beside the code it tests and a rig in one known place.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_the_root_of_tests_holds_no_test_modules() -> None:
    modules = sorted(p.name for p in TESTS.glob("*.py"))
    assert modules == ["__init__.py", "conftest.py"], (
        f"move these into the folder of what they test (rigs: tests/support/): {modules}"
    )
