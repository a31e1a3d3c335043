"""The chat database file: one sqlite3 connection, WAL (``synchronous=NORMAL``), and a numbered
list of migrations (``store.migrations``).

Versioning: ``MIGRATIONS[i]`` is the SQL script that takes the schema from version ``i`` to
``i + 1``. The current version is ``PRAGMA user_version`` (checked before anything is
written, so a file from a newer app is refused untouched); each applied step is also recorded
in ``schema_migrations`` (version, applied_at) for people inspecting the file. All pending
steps run in one ``BEGIN IMMEDIATE`` transaction at open: a failed step leaves the file as it
was.

The full-text index (``store.fts``) is not a migration: it depends on how the local SQLite was
built. It is prepared at open; where FTS5 is missing, search falls back to LIKE.

Failures to open become ``StoreError`` with a sentence for the user; the file is never reset.
Before anything writes to an existing file, ``PRAGMA quick_check`` runs on a read-only
connection: a damaged file (even one bad page) is refused and left byte for byte as it was,
and no checkpoint ever copies a left-over WAL into it. The check is skipped only for a file
exactly as this app's last clean close left it (``store.verified``). A folder that cannot be
written (a read-only mount) is reported as such; ``read_only=True`` still reads such a file,
for the commands that only list or export.

Threads: the app opens the store on the main thread and hands it to the core thread, so the
connection is made with ``check_same_thread=False``; a lock around every statement group keeps
an occasional call from another thread from interleaving with a transaction.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path

from tray_app.base.errors import StoreError
from tray_app.history_warnings import StoreProblem
from tray_app.os_reasons import os_params
from tray_app.store.fts import prepare_fts
from tray_app.store.migrations import MIGRATIONS, check_version, migrate
from tray_app.store.verified import stamp, unchanged_since_close

log = logging.getLogger(__name__)

DEFAULT_BUSY_TIMEOUT = 5.0


class Database:
    """The open chat database, owned by the core thread; go through ``errors``/``transaction``."""

    def __init__(
        self, conn: sqlite3.Connection, path: Path, *, fts: bool, read_only: bool = False
    ) -> None:
        self.conn = conn
        self.path = path
        self.fts = fts  # whether search may use the FTS5 index
        self.read_only = read_only  # opened only to read (the folder cannot be written)
        self._lock = threading.RLock()

    @property
    def schema_version(self) -> int:
        with self.errors("read"):
            return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction, committed at once: a kill loses only the one in flight."""
        if self.read_only:
            raise StoreError(f"The chat history {self.path} was opened read-only.")
        with self.errors("save to"):
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
                self.conn.commit()
            except BaseException:
                # Also after a failed COMMIT (disk full): never leave the transaction open.
                if self.conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self.conn.rollback()
                raise

    @contextlib.contextmanager
    def errors(self, action: str) -> Iterator[None]:
        """Hold the connection, and turn sqlite3 errors into a StoreError the user can read."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                raise StoreError(_describe(exc, self.path, action)) from exc

    def close(self) -> None:
        with self._lock:
            self.conn.close()
            if not self.read_only:
                stamp(self.path)  # the next open may skip the whole-file check (store.verified)


def open_database(
    path: Path,
    *,
    busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    fts: bool | None = None,
    migrations: Sequence[str] = MIGRATIONS,
    read_only: bool = False,
) -> Database:
    """Open (creating if needed) and migrate the database; raise StoreError if it cannot be used.

    ``fts=None`` uses full-text search where SQLite has it; ``False`` forces the LIKE fallback.
    ``migrations`` is a parameter only so tests can play a future version.
    """
    if read_only:
        return _open_read_only(path, busy_timeout, len(migrations))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            StoreProblem(
                f"Cannot create the folder for the chat history {path}: {exc}.",
                "no_folder",
                path=path,
                **os_params(exc),
            )
        ) from exc
    if path.exists() and path.stat().st_size > 0 and not unchanged_since_close(path):
        check_integrity(path, busy_timeout=busy_timeout)
    if not os.access(path.parent, os.W_OK):
        raise StoreError(
            StoreProblem(
                f"Cannot save to the chat history {path}: its folder is read-only or not writable.",
                "folder_not_writable",
                path=path,
            )
        )
    try:
        conn = sqlite3.connect(
            path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(_describe(exc, path, "open")) from exc
    try:
        check_version(conn, path, len(migrations))
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        wal = str(mode).lower() == "wal"
        if not wal:
            log.warning("chat history %s: WAL mode unavailable, using %s", path, mode)
        # WAL + NORMAL: a commit is kept when the app is killed or crashes, and the file is never
        # damaged; only a power cut can lose the last commits (docs/configuration.md). Without
        # WAL a rollback journal needs FULL for that. One fsync per checkpoint, not per commit.
        conn.execute(f"PRAGMA synchronous = {'NORMAL' if wal else 'FULL'}")
        migrate(conn, path, migrations)
        use_fts = prepare_fts(conn) and fts is not False
    except StoreError:
        conn.close()
        raise
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(_describe(exc, path, "open")) from exc
    return Database(conn, path, fts=use_fts)


def check_integrity(path: Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> None:
    """``PRAGMA quick_check`` through a read-only connection; StoreError if the file is damaged.

    Read-only so that nothing (not even a checkpoint of a left-over WAL) writes to a file that
    may be damaged. SQLite creates ``-wal``/``-shm`` beside a WAL file even for a reader; the
    ones this check created are removed again when the file is refused.
    """
    companions = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    existed = [c.exists() for c in companions]
    problem: str | None = None
    try:
        conn = sqlite3.connect(_uri(path, "ro"), uri=True, timeout=busy_timeout)
    except sqlite3.Error as exc:
        raise StoreError(_describe(exc, path, "open")) from exc
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
        if [tuple(r) for r in rows] != [("ok",)]:
            problem = "; ".join(str(r[0]) for r in rows[:3])
    except sqlite3.OperationalError as exc:
        text = str(exc).lower()
        if "unable to open" in text or "readonly" in text:
            return  # a read-only folder: open_database reports that, clearer
        if "locked" in text or "busy" in text:
            raise StoreError(_describe(exc, path, "open")) from exc
        problem = str(exc)
    except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
        problem = str(exc)
    finally:
        conn.close()
    if problem is None:
        return
    problem = " ".join(problem.replace("*** in database main ***", "").split())  # one line
    for companion, was_there in zip(companions, existed, strict=True):
        with contextlib.suppress(OSError):
            if not was_there and (companion.name.endswith("-shm") or companion.stat().st_size == 0):
                companion.unlink()
    raise StoreError(
        StoreProblem(
            f"The chat history {path} is damaged or is not a database ({problem}). "
            "It was left as it is so it can be recovered.",
            "damaged",
            path=path,
            detail=problem,
        )
    )


def _uri(path: Path, mode: str, *, immutable: bool = False) -> str:
    quoted = urllib.parse.quote(str(path.absolute()))
    return f"file:{quoted}?mode={mode}" + ("&immutable=1" if immutable else "")


def _open_read_only(path: Path, busy_timeout: float, known: int) -> Database:
    """Read a file whose folder cannot be written (a read-only mount): no lock, no repair."""
    if not path.exists():
        raise StoreError(
            StoreProblem(f"There is no chat history yet at {path}.", "no_history", path=path)
        )
    if not unchanged_since_close(path):
        check_integrity(path, busy_timeout=busy_timeout)
    conn: sqlite3.Connection | None = None
    for immutable in (False, True):  # a reader of a WAL file needs a -shm it may not create
        try:
            conn = sqlite3.connect(
                _uri(path, "ro", immutable=immutable),
                uri=True,
                timeout=busy_timeout,
                check_same_thread=False,
                isolation_level=None,
            )
            check_version(conn, path, known)
            break
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
                conn = None
            if immutable:
                raise StoreError(_describe(exc, path, "read")) from exc
    assert conn is not None
    return Database(conn, path, fts=False, read_only=True)


def _describe(exc: sqlite3.Error, path: Path, action: str) -> StoreProblem:
    text = str(exc)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return StoreProblem(
            f"The chat history {path} is locked by another program (another Metona Tray, "
            "or a database tool?) and stayed locked past the wait time.",
            "locked",
            path=path,
        )
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return StoreProblem(
            f"The chat history {path} is damaged or is not a database ({text}). "
            "It was left as it is so it can be recovered.",
            "damaged",
            path=path,
            detail=text,
        )
    if "disk" in lowered and "full" in lowered:
        return StoreProblem(
            f"Cannot {action} the chat history {path}: the disk is full.", "disk_full", path=path
        )
    if "readonly" in lowered or "read-only" in lowered:
        return StoreProblem(
            f"Cannot {action} the chat history {path}: it is on a read-only disk or folder.",
            "read_only",
            path=path,
        )
    if "unable to open" in lowered or "permission" in lowered:
        return StoreProblem(
            f"Cannot {action} the chat history {path}: {text} (check its permissions).",
            "cannot_open",
            path=path,
            detail=text,
        )
    return StoreProblem(
        f"Cannot {action} the chat history {path}: {text}.", "failed", path=path, detail=text
    )
