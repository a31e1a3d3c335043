"""Builds a running Core with everything it keeps: logs, chat store, audit log, secrets.

The terminal mode and the desktop app start the app the same way; tests build their own
``Core`` directly. Every entry point goes through ``open_history``, so each start repairs what
a killed run left (rows still streaming, calls still pending, commands still running) under
one lock, sparing what a live process is still doing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from tray_app.base.events import Notice
from tray_app.base.logs import setup_logging
from tray_app.base.paths import AppPaths
from tray_app.core.mcp_host import McpStart
from tray_app.core.service import Core
from tray_app.history_warnings import HistoryWarning
from tray_app.os_reasons import os_params
from tray_app.store.audit import AuditLog
from tray_app.store.chats import SQLiteChats
from tray_app.store.opening import open_chat_store
from tray_app.store.owners import repair_lock, sweep_dead_marks
from tray_app.store.records import ChatRepository
from tray_app.store.secrets import SecretStore
from tray_app.store.settings import Settings, load_settings
from tray_app.store.unsaved import unsaved_sentence
from tray_app.tools.builtin.orphans import reap_orphaned_commands

log = logging.getLogger(__name__)


@dataclass
class RunningApp:
    core: Core
    audit: AuditLog
    paths: AppPaths
    history: str = "on"  # "on", "read-only" (listing and export only) or "off" (memory)
    chats: ChatRepository | None = None

    def unsaved_sessions(self) -> list[str]:
        """Chats whose last state could not be saved (after ``close``: lost at exit)."""
        return self.chats.unsaved_sessions() if isinstance(self.chats, SQLiteChats) else []

    def close(self, timeout: float = 3.0) -> None:
        self.core.stop(timeout)
        self.audit.close()


def prepare_folders(paths: AppPaths) -> str | None:
    """Create the app's folders and the log file; a sentence instead of a crash if they can't be."""
    try:
        paths.ensure()
        setup_logging(paths)
    except OSError as exc:
        # No log file: keep log records off the terminal (logging's last resort is stderr);
        # the user gets one sentence from the caller instead.
        logging.getLogger().addHandler(logging.NullHandler())
        return HistoryWarning(
            f"The app's folders cannot be written ({exc.strerror or exc}: {exc.filename}).",
            "folders_unwritable",
            path=exc.filename or paths.data_dir,
            **os_params(exc),
        )
    return None


def open_history(
    paths: AppPaths, *, read_only_ok: bool = False
) -> tuple[ChatRepository, str | None]:
    """The chat store after the start-up repair; every entry point calls this once.

    Under ``repair.lock``: commands a killed run left are killed, then its interrupted rows are
    marked (stopped / cancelled with a note). Rows a live process owns are left alone.
    Never raises: a store that cannot be used comes back as memory plus the sentence why.
    """
    with repair_lock(paths.data_dir) as held:
        if held:
            reap_orphaned_commands()  # commands a killed earlier run could not stop
        chats, warning = open_chat_store(paths, recover=False, read_only_ok=read_only_ok)
        if held and isinstance(chats, SQLiteChats):
            chats.mark_interrupted()
            sweep_dead_marks(paths.data_dir)
    return chats, warning


def save_notices(core: Core) -> Callable[[str, str | None], None]:
    """Tell the chat's viewers when its save fails (kept in memory) and when it works again."""

    def report(session_id: str, reason: str | None) -> None:
        if reason is None:
            notice = Notice(
                session_id=session_id,
                level="info",
                code="history_saved",
                message="This chat is saved again.",
            )
        else:
            notice = Notice(
                session_id=session_id,
                level="warning",
                code="history_not_saved",
                message=unsaved_sentence(reason),
                args={"reason": reason},
            )
        core.bus.publish(notice)

    return report


def start_app(
    paths: AppPaths,
    *,
    settings: Settings | None = None,
    persist_settings: bool = True,
    read_only_ok: bool = False,
    mcp: McpStart = "start",
) -> RunningApp:
    """Start the core on top of ``open_history``. ``read_only_ok``: see ``open_chat_store``."""
    problem = prepare_folders(paths)
    chats, warning = open_history(paths, read_only_ok=read_only_ok)
    if problem and warning is None:
        warning = problem
    audit = AuditLog(paths)
    core = Core(
        settings=settings if settings is not None else load_settings(paths.settings_file),
        paths=paths,
        chats=chats,
        history_warning=warning,
        on_tool_record=audit.record,
        secrets=SecretStore,
        persist_settings=persist_settings,
        mcp=mcp,
    ).start()
    if not isinstance(chats, SQLiteChats):
        history = "off"
    else:
        history = "read-only" if chats.db.read_only else "on"
        chats.unsaved.report = save_notices(core)
    return RunningApp(core=core, audit=audit, paths=paths, history=history, chats=chats)
