"""Which chats have a running turn: shared by the turn and session services (core thread only).

A chat runs at most one turn at a time; ``send_message`` refuses a second with ``Busy``.
"""

from __future__ import annotations

import asyncio


class ActiveTurns:
    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[str]] = {}  # session id -> running turn

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._tasks

    def __bool__(self) -> bool:
        return bool(self._tasks)

    def get(self, session_id: str) -> asyncio.Task[str] | None:
        return self._tasks.get(session_id)

    def add(self, session_id: str, task: asyncio.Task[str]) -> None:
        self._tasks[session_id] = task

    def discard(self, session_id: str) -> None:
        self._tasks.pop(session_id, None)

    def ids(self) -> list[str]:
        return list(self._tasks)

    def tasks(self) -> list[asyncio.Task[str]]:
        return list(self._tasks.values())

    def cancel(self, session_id: str) -> bool:
        """Cancel the chat's turn if one runs; whether there was one to stop."""
        task = self._tasks.get(session_id)
        if task is None or task.done():
            return False
        task.cancel()
        return True
