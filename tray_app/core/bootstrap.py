"""Builds a running Core with everything it keeps: logs, chat store, audit log, secrets.

The terminal mode and the desktop app start the app the same way; tests build their own
``Core`` directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from tray_app.core.service import Core
from tray_app.logs import setup_logging
from tray_app.paths import AppPaths
from tray_app.store.audit import AuditLog
from tray_app.store.chats import open_chat_store
from tray_app.store.secrets import SecretStore
from tray_app.store.settings import Settings, load_settings
from tray_app.tools.orphans import reap_orphaned_commands


@dataclass
class RunningApp:
    core: Core
    audit: AuditLog
    paths: AppPaths

    def close(self, timeout: float = 3.0) -> None:
        self.core.stop(timeout)
        self.audit.close()


def start_app(
    paths: AppPaths,
    *,
    settings: Settings | None = None,
    persist_settings: bool = True,
    recover: bool = True,
) -> RunningApp:
    """Start the core. ``recover`` repairs answers an earlier crash left half-written; a second
    process (the terminal while the desktop app runs) passes False."""
    paths.ensure()
    setup_logging(paths)
    reap_orphaned_commands()  # commands a killed earlier run could not stop
    chats, warning = open_chat_store(paths, recover=recover)
    audit = AuditLog(paths)
    core = Core(
        settings=settings if settings is not None else load_settings(paths.settings_file),
        paths=paths,
        chats=chats,
        history_warning=warning,
        on_tool_record=audit.record,
        secrets=SecretStore,
        persist_settings=persist_settings,
    ).start()
    return RunningApp(core=core, audit=audit, paths=paths)
