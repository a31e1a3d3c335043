"""Fixtures for the store tests: a SQLite chat store in the test's METONA_HOME."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database


@pytest.fixture
def sqlite_chats(app_paths: AppPaths) -> Iterator[SQLiteChats]:
    chats = SQLiteChats(open_database(app_paths.database_file))
    yield chats
    chats.close()


@pytest.fixture
def like_chats(app_paths: AppPaths) -> Iterator[SQLiteChats]:
    """The same store with full-text search turned off (the LIKE fallback)."""
    chats = SQLiteChats(open_database(app_paths.database_file, fts=False))
    yield chats
    chats.close()
