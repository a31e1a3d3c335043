"""The installers `make package` built, as `make package-test` hands them over (environment
variables set by scripts/package-test.sh). Without them these tests skip: building takes
minutes, so `make test` does not do it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _given(name: str) -> Path:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set: `make package-test` builds the installers and runs these")
    path = Path(value).resolve()
    assert path.exists(), f"{name}={value} does not exist"
    return path


@pytest.fixture(scope="session")
def deb_root() -> Path:
    """The .deb unpacked with ``dpkg -x`` (a throwaway root)."""
    return _given("METONA_PACKAGE_ROOT")


@pytest.fixture(scope="session")
def deb_file() -> Path:
    return _given("METONA_PACKAGE_DEB")


@pytest.fixture(scope="session")
def tarball() -> Path:
    return _given("METONA_PACKAGE_TAR")
