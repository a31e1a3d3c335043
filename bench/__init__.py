"""Benchmarks (``make bench``): speed and memory are measured here, never asserted in tests."""
