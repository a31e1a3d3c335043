"""Test-only: serves ``web/`` in a plain browser against the real Core (never shipped)."""

from tests.web_harness.server import PageHarness

__all__ = ["PageHarness"]
