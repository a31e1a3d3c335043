"""The undo journal's index: one SQLite table that every process on the data folder shares.

The desktop app and any number of ``metona-tray`` commands record, commit and undo at the same
time. Each change is a short ``BEGIN IMMEDIATE`` transaction, so a process reads the others'
entries fresh and never writes back a stale copy of its own (the old ``index.json`` was rewritten
from one process's memory and lost the other's entries). A killed process's half-done transaction
is rolled back by SQLite at the next open. Rollback-journal mode, not WAL: a read-only folder can
still be listed, and a full one fails the write with a clear error instead of a torn file.

A row is inserted (``pending``) before its saved copy is written under ``blobs/<id>/``, so the
sweep, which removes copies no row keeps, can never remove one that another process is still
writing or still lists.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tray_app.os_reasons import os_params
from tray_app.tools.journal.snapshot import State
from tray_app.undo_reasons import Reason, code_of, from_stored

log = logging.getLogger(__name__)

DB_NAME = "journal.sqlite3"
BUSY_TIMEOUT = 60.0  # an undo of a big tree holds the write lock while it restores

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id      BLOB PRIMARY KEY,        -- names are UTF-8 bytes (lone surrogates kept): see _b
    seq     INTEGER UNIQUE,          -- the change's number, in commit order; NULL while pending
    call_id BLOB,
    tool    BLOB NOT NULL,
    path    BLOB NOT NULL,
    time    REAL NOT NULL,
    before  TEXT NOT NULL,           -- JSON State
    after   TEXT,                    -- JSON State
    state   TEXT NOT NULL,           -- pending | committed | undone
    size    INTEGER NOT NULL DEFAULT 0,
    kept    INTEGER NOT NULL DEFAULT 0,  -- blobs/<id>/ belongs to this row
    reason  BLOB,                    -- why it cannot be undone
    noop    INTEGER NOT NULL DEFAULT 0,
    owner   TEXT,                    -- the process a pending row belongs to
    reason_info TEXT                 -- JSON {code, params} of reason (undo_reasons), if coded
);
CREATE INDEX IF NOT EXISTS entries_call ON entries (call_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


class IndexProblem(Exception):
    """The index cannot be read or written; ``str()`` says why in one sentence, ``reason``
    the same with its code when it has one."""

    @property
    def reason(self) -> str:
        first = self.args[0] if self.args else ""
        return first if isinstance(first, Reason) else str(self)


@dataclass
class Entry:
    id: str
    call_id: str | None
    tool: str
    path: str
    time: float
    before: State
    after: State | None = None
    state: str = "pending"  # pending | committed | undone
    size: int = 0  # bytes of saved copies on disk (reserved while pending)
    kept: bool = False
    reason: str | None = None
    noop: bool = False
    seq: int | None = None
    owner: str | None = None


COLUMNS = (
    "id, seq, call_id, tool, path, time, before, after, state, size, kept, reason, noop, owner,"
    " reason_info"
)


#: The columns a change's later steps rewrite; ``id``, ``call_id``, ``tool`` and ``path`` say
#: which change it is and are written once.
_CHANGING = [c for c in COLUMNS.split(", ") if c not in ("id", "call_id", "tool", "path")]
_INSERT = (
    f"INSERT INTO entries (id, call_id, tool, path, {', '.join(_CHANGING)})"  # noqa: S608
    f" VALUES ({', '.join('?' * (4 + len(_CHANGING)))})"
)
_UPDATE = f"UPDATE entries SET {', '.join(f'{c}=?' for c in _CHANGING)} WHERE id=?"  # noqa: S608


def _changing_values(entry: Entry) -> tuple[object, ...]:
    """``entry``'s values for ``_CHANGING``, in its order, as stored."""
    return (
        entry.seq,
        entry.time,
        json.dumps(entry.before),
        json.dumps(entry.after) if entry.after is not None else None,
        entry.state,
        entry.size,
        int(entry.kept),
        _b(entry.reason),
        int(entry.noop),
        entry.owner,
        _info_text(entry.reason),
    )


def _b(text: str | None) -> bytes | None:
    """Names are stored as bytes: a path (or a model's call id) may hold lone surrogates, which
    SQLite's text cannot, and every one must come back exactly."""
    return None if text is None else text.encode("utf-8", "surrogatepass")


def _s(raw: bytes | str | None) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    return raw.decode("utf-8", "surrogatepass")


def _row(raw: tuple[Any, ...]) -> Entry:
    (id_, seq, call_id, tool, path, when, before, after, state, size, kept, reason, noop, owner) = (
        raw[:14]
    )
    info = _info(raw[14])
    return Entry(
        id=str(_s(id_)),
        seq=seq,
        call_id=_s(call_id),
        tool=str(_s(tool)),
        path=str(_s(path)),
        time=when,
        before=json.loads(before),
        after=json.loads(after) if after else None,
        state=state,
        size=size,
        kept=bool(kept),
        reason=from_stored(_s(reason), info),
        noop=bool(noop),
        owner=owner,
    )


def _info(raw: object) -> dict[str, Any] | None:
    """A stored reason code; damaged or foreign text counts as none (the sentence is shown)."""
    if not isinstance(raw, str) or len(raw) > 100_000:
        return None
    try:
        info = json.loads(raw)
    except ValueError:
        return None
    return info if isinstance(info, dict) else None


def _info_text(reason: str | None) -> str | None:
    coded = code_of(reason)
    return json.dumps(coded, ensure_ascii=False) if coded else None


def describe(exc: BaseException, root: Path) -> Reason:
    """One sentence (with its code) for a storage failure of the journal folder."""
    text = str(exc)
    name = getattr(exc, "sqlite_errorname", "")
    errno_ = getattr(exc, "errno", None)
    if name == "SQLITE_FULL" or "full" in text or errno_ in (28, 122):  # ENOSPC, EDQUOT
        return Reason(f"the undo journal's folder {root} is full", "journal_full", folder=root)
    if name.startswith("SQLITE_READONLY") or "readonly" in text or errno_ == 30:  # EROFS
        return Reason(
            f"the undo journal's folder {root} is read-only", "journal_read_only", folder=root
        )
    if name == "SQLITE_BUSY" or "locked" in text:
        return Reason(
            f"the undo journal in {root} is locked by another process",
            "journal_locked",
            folder=root,
        )
    if errno_ in (1, 13):  # EPERM, EACCES
        return Reason(
            f"the undo journal's folder {root} cannot be written (permission denied)",
            "journal_no_permission",
            folder=root,
        )
    try:  # SQLite's "unable to open database file" does not say why; the file system does
        fs = os.statvfs(root) if hasattr(os, "statvfs") else None
    except OSError:
        fs = None
    if fs is not None and fs.f_flag & getattr(os, "ST_RDONLY", 1):
        return Reason(
            f"the undo journal's folder {root} is read-only", "journal_read_only", folder=root
        )
    if fs is not None and fs.f_bavail == 0:
        return Reason(f"the undo journal's folder {root} is full", "journal_full", folder=root)
    if isinstance(exc, OSError):
        detail = exc.strerror or str(exc)
        if errno_ in (17, 20):  # EEXIST, ENOTDIR: a file stands where the folder should be
            return Reason(
                f"the undo journal's folder {root} cannot be written ({detail})",
                "journal_file_in_the_way",
                folder=root,
            )
        return Reason(
            f"the undo journal's folder {root} cannot be written ({detail})",
            "journal_not_writable",
            folder=root,
            **os_params(exc),
        )
    return Reason(
        f"the undo journal in {root} cannot be used ({text})",
        "journal_unusable",
        folder=root,
        detail=text,
    )


class Index:
    """The ``entries`` table. Not thread-safe by itself: ``Journal`` holds its lock around it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / DB_NAME
        try:
            self.conn = self._connect()
        except sqlite3.DatabaseError as exc:
            if not _damaged(exc):
                raise IndexProblem(describe(exc, root)) from exc
            aside = self.path.with_name(f"journal.damaged-{int(time.time())}.sqlite3")
            log.warning("undo journal %s is damaged (%s); moved to %s", self.path, exc, aside)
            try:
                self.path.replace(aside)
                self.conn = self._connect()
            except (OSError, sqlite3.Error) as again:
                raise IndexProblem(describe(again, root)) from again

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("PRAGMA synchronous = FULL")
            have = conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE name IN ('entries', 'meta')"
            ).fetchone()[0]
            if have < 2:
                conn.executescript(f"BEGIN IMMEDIATE;{SCHEMA}COMMIT;")
            self.select = _add_reason_info(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction holding SQLite's write lock; any failure leaves nothing changed."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise IndexProblem(describe(exc, self.root)) from exc
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise IndexProblem(describe(exc, self.root)) from exc
            raise

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[Entry]:
        """Rows matching ``sql`` (a WHERE/ORDER clause); text values in ``params`` are names."""
        try:
            # ``sql`` is always a constant of journal.py; values go in ``params``.
            query = f"SELECT {self.select} FROM entries {sql}"  # noqa: S608
            values = tuple(_b(p) if isinstance(p, str) else p for p in params)
            rows = self.conn.execute(query, values).fetchall()
        except sqlite3.Error as exc:
            raise IndexProblem(describe(exc, self.root)) from exc
        return [_row(r) for r in rows]

    def get(self, entry_id: str) -> Entry | None:
        found = self.read("WHERE id = ?", (entry_id,))
        return found[0] if found else None

    # -- inside ``write()`` ----------------------------------------------------------------

    def insert(self, entry: Entry) -> None:
        fixed = (_b(entry.id), _b(entry.call_id), _b(entry.tool), _b(entry.path))
        self.conn.execute(_INSERT, (*fixed, *_changing_values(entry)))

    def update(self, entry: Entry) -> None:
        self.conn.execute(_UPDATE, (*_changing_values(entry), _b(entry.id)))

    def delete(self, entry_id: str) -> None:
        self.conn.execute("DELETE FROM entries WHERE id = ?", (_b(entry_id),))

    def next_seq(self) -> int:
        """Change numbers are never reused, even after old entries are trimmed."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'next_seq'").fetchone()
        top = self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM entries").fetchone()[0]
        seq = max(int(row[0]) if row else 1, int(top) + 1)
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES ('next_seq', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (seq + 1,),
        )
        return seq

    def kept_bytes(self) -> int:
        row = self.conn.execute("SELECT COALESCE(SUM(size), 0) FROM entries WHERE kept = 1")
        return int(row.fetchone()[0])

    def kept_ids(self) -> set[str]:
        rows = self.conn.execute("SELECT id FROM entries WHERE kept = 1").fetchall()
        return {str(_s(r[0])) for r in rows}

    def import_legacy(self, index: Path) -> int:
        """Entries of the ``index.json`` an earlier version wrote (inside ``write()``)."""
        data = json.loads(index.read_text(encoding="utf-8"))
        count = 0
        for raw in sorted(data.get("entries", []), key=lambda r: r.get("seq", 0)):
            if raw.get("state") not in ("committed", "undone") or self.get(str(raw["id"])):
                continue
            before = raw.get("before") or {"kind": "unknown"}
            committed = raw["state"] == "committed" and not raw.get("reason")
            self.insert(
                Entry(
                    id=str(raw["id"]),
                    seq=self.next_seq(),
                    call_id=raw.get("call_id"),
                    tool=str(raw.get("tool", "")),
                    path=str(raw.get("path", "")),
                    time=float(raw.get("time", 0.0)),
                    before=before,
                    after=raw.get("after"),
                    state=str(raw["state"]),
                    size=int(raw.get("size") or 0) if committed else 0,
                    kept=committed and before.get("kind") in ("file", "tree"),
                    reason=raw.get("reason"),
                    noop=bool(raw.get("noop")),
                )
            )
            count += 1
        return count


def _add_reason_info(conn: sqlite3.Connection) -> str:
    """The columns to read: an index from before reason codes gets the column; a read-only one
    is still listed (its reasons as sentences)."""
    names = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
    if "reason_info" in names:
        return COLUMNS
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            names = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
            if "reason_info" not in names:  # another process may have added it meanwhile
                conn.execute("ALTER TABLE entries ADD COLUMN reason_info TEXT")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError as exc:
        log.warning("undo journal: reason codes cannot be stored (%s)", exc)
        return COLUMNS.replace("reason_info", "NULL")
    return COLUMNS


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    name = getattr(exc, "sqlite_errorname", "")
    text = str(exc)
    return name in ("SQLITE_NOTADB", "SQLITE_CORRUPT") or (
        "not a database" in text or "malformed" in text
    )
