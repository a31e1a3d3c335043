"""A freedesktop notification server quirk, worked around through desktop-notifier's D-Bus
backend.

notification-daemon 3.20 (Debian 12) answers ``CloseNotification`` with ``NotificationClosed``
but leaves the bubble on screen (seen under Xvfb, also with a plain ``gdbus`` call, no
desktop-notifier involved), so a withdrawn approval would still offer its buttons. Replacing the
notification with an empty one that expires at once does remove it there. The backend's D-Bus
proxy and id map are desktop-notifier internals (6.x): every use is guarded, and where they are
missing nothing happens beyond the normal ``clear``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

log = logging.getLogger(__name__)

# GetServerInformation's name, lower case with spaces as dashes (it says "Notification Daemon").
CLOSE_IGNORED_BY = frozenset({"notification-daemon"})


def ignores_close(server: str | None) -> bool:
    return bool(server) and str(server).strip().lower().replace(" ", "-") in CLOSE_IGNORED_BY


def _dbus_backend(notifier: Any) -> tuple[Any, Any] | None:
    """(the D-Bus proxy interface, platform id <-> identifier map), or None."""
    backend = getattr(notifier, "_backend", None)
    interface = getattr(backend, "interface", None)
    ids = getattr(backend, "_platform_to_interface_notification_identifier", None)
    if interface is None or ids is None or not hasattr(ids, "inverse"):
        return None
    return interface, ids


async def server_name(notifier: Any) -> str | None:
    """The notification server's name (``GetServerInformation``), None when unknown."""
    found = _dbus_backend(notifier)
    if found is None:
        return None
    with contextlib.suppress(Exception):
        info = await asyncio.wait_for(found[0].call_get_server_information(), 2.0)
        return str(info[0])
    return None


async def expire_now(notifier: Any, identifier: str, app_name: str) -> None:
    """Replace the notification by an empty one that expires at once (see the module note)."""
    found = _dbus_backend(notifier)
    if found is None:
        return
    interface, ids = found
    platform_id = ids.inverse.get(identifier)
    if platform_id is None:
        return
    try:
        await asyncio.wait_for(
            interface.call_notify(app_name, platform_id, "", app_name, "", [], {}, 1), 2.0
        )
    except Exception:
        log.debug("could not expire notification %s", platform_id, exc_info=True)
