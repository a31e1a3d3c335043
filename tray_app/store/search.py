"""Search chats by the words the user types: titles and user/assistant message text.

Every word must appear (AND), as a case-insensitive substring. In SQLite the message text goes
through the FTS5 trigram index when there is one and every word has at least three characters
(trigrams need three); otherwise, and for titles, it is a LIKE scan. The user's words are
always quoted as FTS5 strings and LIKE-escaped, so quotes, ``*``, ``-``, ``AND``/``NEAR``
or ``%`` in a query are plain text and never an error.
"""

from __future__ import annotations

import sqlite3
from typing import Literal, TypedDict

from tray_app.store.records import ChatRepository

SNIPPET_CHARS = 90
_MAX_TERMS = 16
_SEARCHED_ROLES = ("user", "assistant")


class SearchHit(TypedDict):
    """One session that matched, with the message that matched (the newest one)."""

    session_id: str
    title: str
    updated_at: float
    match: Literal["title", "content"]
    message_id: str | None
    role: str | None
    snippet: str


def query_terms(query: str) -> list[str]:
    """The distinct words of a query, in order (case-insensitive duplicates dropped)."""
    terms: list[str] = []
    seen: set[str] = set()
    for word in query.split():
        key = word.casefold()
        if key not in seen:
            seen.add(key)
            terms.append(word)
    return terms[:_MAX_TERMS]


def fts_expression(terms: list[str]) -> str:
    """An FTS5 query where each word is a quoted string: no operator can slip through."""
    return " ".join('"' + term.replace('"', '""') + '"' for term in terms)


def like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def snippet(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """A one-line excerpt around the first word found."""
    flat = " ".join(text.split())
    lowered = flat.lower()
    found = [i for i in (lowered.find(t.lower()) for t in terms) if i >= 0]
    start = max(0, min(found, default=0) - width // 3)
    piece = flat[start : start + width]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + width < len(flat) else ""
    return f"{prefix}{piece}{suffix}"


def search_database(
    conn: sqlite3.Connection, query: str, *, fts: bool, limit: int = 50
) -> list[SearchHit]:
    """Search the chat database; ``fts`` says whether the FTS5 index may be used."""
    terms = query_terms(query)
    if not terms:
        return []
    likes = [like_pattern(t) for t in terms]
    roles = ", ".join(f"'{r}'" for r in _SEARCHED_ROLES)
    if fts and all(len(t) >= 3 for t in terms):
        source = (
            "messages_fts JOIN messages m ON m.seq = messages_fts.rowid "
            f"WHERE messages_fts MATCH ? AND m.role IN ({roles})"
        )
        params: list[object] = [fts_expression(terms)]
    else:
        source = "messages m WHERE " + " AND ".join(
            ["m.content LIKE ? ESCAPE '\\'"] * len(terms) + [f"m.role IN ({roles})"]
        )
        params = list(likes)
    # Only constant SQL is joined here; the user's words travel as parameters.
    # SQLite returns the other columns of the MAX(seq) row: the newest match per session.
    newest = f"SELECT m.session_id, m.id, m.role, MAX(m.seq) FROM {source}"  # noqa: S608
    content_sql = f"SELECT s.id, s.title, s.updated_at, h.id, h.role FROM ({newest} GROUP BY m.session_id) h JOIN sessions s ON s.id = h.session_id"  # noqa: S608, E501
    title_sql = "SELECT id, title, updated_at FROM sessions WHERE " + " AND ".join(  # noqa: S608
        ["title LIKE ? ESCAPE '\\'"] * len(terms)
    )
    content_rows = conn.execute(content_sql, params).fetchall()
    title_rows = conn.execute(title_sql, likes).fetchall()
    hits: dict[str, SearchHit] = {}
    for sid, title, updated, message_id, role in content_rows:
        hits[sid] = _hit(sid, title, updated, "content", message_id, role, "")
    for sid, title, updated in title_rows:
        hits[sid] = _hit(sid, title, updated, "title", None, None, title)
    found = _ordered(hits, limit)
    # The message text is read, and its snippet made, only for the hits returned.
    for hit in found:
        if hit["match"] == "content":
            row = conn.execute(
                "SELECT content FROM messages WHERE id = ?", (hit["message_id"],)
            ).fetchone()
            hit["snippet"] = snippet(row[0] if row else "", terms)
    return found


def search_repository(repo: ChatRepository, query: str, *, limit: int = 50) -> list[SearchHit]:
    """The same search over any ChatRepository (the in-memory store when history is off)."""
    terms = query_terms(query)
    if not terms:
        return []
    folded = [t.casefold() for t in terms]
    hits: dict[str, SearchHit] = {}
    for session in repo.list_sessions(limit=1 << 30):
        title = session.title.casefold()
        if all(t in title for t in folded):
            hits[session.id] = _hit(
                session.id, session.title, session.updated_at, "title", None, None, session.title
            )
            continue
        for message in reversed(repo.messages(session.id)):
            text = message.content.casefold()
            if message.role in _SEARCHED_ROLES and all(t in text for t in folded):
                hits[session.id] = _hit(
                    session.id,
                    session.title,
                    session.updated_at,
                    "content",
                    message.id,
                    message.role,
                    snippet(message.content, terms),
                )
                break
    return _ordered(hits, limit)


def _hit(
    session_id: str,
    title: str,
    updated_at: float,
    match: Literal["title", "content"],
    message_id: str | None,
    role: str | None,
    text: str,
) -> SearchHit:
    return SearchHit(
        session_id=session_id,
        title=title,
        updated_at=updated_at,
        match=match,
        message_id=message_id,
        role=role,
        snippet=text,
    )


def _ordered(hits: dict[str, SearchHit], limit: int) -> list[SearchHit]:
    return sorted(hits.values(), key=lambda h: h["updated_at"], reverse=True)[:limit]
