"""The notification-daemon workaround: a withdrawn notification is first replaced by one that
expires at once (the real daemon is driven in tests/e2e/test_real_notification_daemon.py)."""

from __future__ import annotations

from typing import Any

from tray_app.desktop.notify.notify_linux import expire_now, ignores_close, server_name


class Ids(dict[int, str]):
    @property
    def inverse(self) -> dict[str, int]:
        return {v: k for k, v in self.items()}


class Interface:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def call_get_server_information(self) -> list[str]:
        return ["Notification Daemon", "GNOME", "3.20.0", "1.2"]

    async def call_notify(self, *args: Any) -> int:
        self.calls.append(args)
        return int(args[1])


class Backend:
    def __init__(self) -> None:
        self.interface = Interface()
        self._platform_to_interface_notification_identifier = Ids({7: "uuid-7"})


class Notifier:
    def __init__(self) -> None:
        self._backend = Backend()


def test_which_servers_ignore_close() -> None:
    assert ignores_close("Notification Daemon") and ignores_close("notification-daemon")
    assert not ignores_close("dunst") and not ignores_close(None)


async def test_the_notification_is_replaced_by_one_that_expires_at_once() -> None:
    notifier = Notifier()
    assert await server_name(notifier) == "Notification Daemon"
    await expire_now(notifier, "uuid-7", "Metona Tray")
    assert notifier._backend.interface.calls == [
        ("Metona Tray", 7, "", "Metona Tray", "", [], {}, 1)
    ]
    await expire_now(notifier, "unknown", "Metona Tray")  # not ours: nothing sent
    assert len(notifier._backend.interface.calls) == 1


async def test_without_the_backend_internals_nothing_happens() -> None:
    assert await server_name(object()) is None
    await expire_now(object(), "uuid-7", "Metona Tray")
