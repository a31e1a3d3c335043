"""A private desktop for end-to-end tests: Xvfb, a D-Bus session, the OS keyring
(gnome-keyring-daemon, unlocked, when installed), the test notification server and a tray host
(trayer), each a child process stopped by PID; and ``AppProcess``, the
real app (``python -m tray_app``) driven through its instance socket and xdotool.

The keyring can also be what other sessions have (``keyring=``): ``none`` (a bus that activates
nothing: no Secret Service), ``fresh`` (the bus activates gnome-keyring the first time it is
asked, as a new account's session does: no login keyring, so no default collection) and
``locked`` (activated the same way, with a login keyring from an earlier session that nobody
unlocked). Its password prompts (gcr-prompter) would draw on this desktop's display.

Everything waits on conditions with timeouts (``wait_for``), never on fixed sleeps.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from PIL import Image, ImageGrab

from tests.support.secret_service import BUS_CONFIG, DAEMON, KeyringDaemon, PrivateBus, connect
from tests.support.waiting import eventually
from tray_app.base.paths import AppPaths
from tray_app.desktop.instance.instance import InstanceError, SingleInstance

ROOT = Path(__file__).resolve().parents[2]
NOTIFY_SERVER = Path(__file__).with_name("notify_server.py")
REAL_NOTIFICATION_DAEMON = "/usr/lib/notification-daemon/notification-daemon"
SCREEN = "1280x800x24"
TRAY_HEIGHT = 32
TOOLS = ("Xvfb", "dbus-daemon", "trayer", "xdotool", "xwininfo", "xprop", "openbox")
T = TypeVar("T")
# Focus follows clicks and new windows get focus (openbox's defaults), no desktop menus.
KEYRINGS = ("unlocked", "none", "fresh", "locked")
PROMPTER = "gcr-prompter"  # gnome-keyring's password prompts
OPENBOX_RC = """<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <placement><policy>Smart</policy></placement>
  <desktops><number>1</number></desktops>
</openbox_config>
"""


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, grandchildren, ...), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def wait_for(check: Callable[[], T], timeout: float, what: str, interval: float = 0.05) -> T:
    """``eventually`` as the desktop needs it: a window, socket or D-Bus name that is not up
    yet raises, which means "not yet" here, and every wait names what it waits for."""
    return eventually(check, timeout, what, interval=interval, ignoring=(Exception,))


@dataclass
class Child:
    name: str
    popen: subprocess.Popen[bytes]

    def stop(self, timeout: float = 3.0) -> None:
        """TERM the process group, then KILL it: nothing may outlive the test."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)  # stragglers in its group too
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout)


class DesktopEnv:
    def __init__(
        self,
        workdir: Path,
        artifacts: Path,
        *,
        notifications: str = "recorder",
        keyring: str = "unlocked",
        login_secrets: dict[str, str] | None = None,
    ) -> None:
        """``notifications``: ``recorder`` (tests/e2e/notify_server.py, which records and
        clicks on demand) or ``real`` (the system's notification-daemon, drawing bubbles).
        ``keyring``: one of KEYRINGS (see the module); ``login_secrets`` (username: secret,
        the app's service) are in the ``locked`` login keyring, stored while it was open."""
        assert keyring in KEYRINGS, keyring
        self.keyring_kind = keyring
        self.login_secrets = login_secrets or {}
        self._runtime: Path | None = None
        self.notifications_kind = notifications
        self.workdir = workdir
        self.artifacts = artifacts
        self.children: list[Child] = []
        self.display = ""
        self.bus_address = ""
        self.keyring: KeyringDaemon | None = None
        artifacts.mkdir(parents=True, exist_ok=True)

    # ---- start / stop ----------------------------------------------------------------------

    def _spawn(self, name: str, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", open(self.workdir / f"{name}.log", "wb"))  # noqa: SIM115
        popen = subprocess.Popen(argv, start_new_session=True, **kwargs)
        self.children.append(Child(name, popen))
        return popen

    def start(self) -> DesktopEnv:
        try:
            self._start_xvfb()
            self._start_dbus()
            self._start_keyring()
            self._start_window_manager()
            self._start_notifications()
            self._start_tray()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.keyring is not None:
            self.keyring.stop()
            self.keyring = None
        for pid in self._activated():  # what the bus started: gnome-keyring, its prompter
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for child in reversed(self.children):
            child.stop()
        self.children.clear()
        if self._runtime is not None:
            shutil.rmtree(self._runtime, ignore_errors=True)
            self._runtime = None

    def _activated(self) -> set[int]:
        bus = next((c for c in self.children if c.name == "dbus"), None)
        return descendants(bus.popen.pid) if bus is not None else set()

    def prompter_running(self) -> bool:
        """Whether the keyring's password prompt was started (by the bus, for the daemon)."""
        for pid in self._activated():
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip() == PROMPTER:
                    return True
        return False

    def prompt_windows(self) -> list[str]:
        """The keyring's password prompts on the screen."""
        return self.xdotool("search", "--onlyvisible", "--class", PROMPTER, check=False).split()

    def _session_env(self) -> dict[str, str]:
        """What the bus gives the services it activates: a home of this desktop's own (no
        keyring of the machine's), this display (a prompt would show here)."""
        home = self.workdir / "session-home"
        data = home / "data"
        data.mkdir(parents=True, exist_ok=True)
        self._runtime = Path(tempfile.mkdtemp(prefix="mk-"))  # short: AF_UNIX paths
        if self.keyring_kind == "locked":
            self._make_login_keyring(home)
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_DATA_HOME": str(data),
            "XDG_RUNTIME_DIR": str(self._runtime),
            "DISPLAY": self.display,
            "GDK_BACKEND": "x11",
            "NO_AT_BRIDGE": "1",
        }

    def _make_login_keyring(self, home: Path) -> None:
        """A login keyring with a password, written by a daemon on a bus of its own that is
        then stopped: the next session's daemon finds it locked."""
        import secretstorage

        bus = PrivateBus(self.workdir).start()
        daemon = KeyringDaemon(bus.address, self.workdir)  # keeps its files in workdir/home
        try:
            daemon.start()
            with connect(bus.address) as connection:
                collection = secretstorage.Collection(connection)
                for user, secret in self.login_secrets.items():
                    attributes = {"service": "metona-tray", "username": user}
                    collection.create_item(user, attributes, secret.encode(), replace=True)
        finally:
            daemon.stop()
            bus.stop()
        shutil.copytree(self.workdir / "home" / "data", home / "data", dirs_exist_ok=True)

    def _start_xvfb(self) -> None:
        read_fd, write_fd = os.pipe()
        self._spawn(
            "xvfb",
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", SCREEN, "-nolisten", "tcp",
             "-noreset"],
            pass_fds=(write_fd,),
        )  # fmt: skip
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:  # Xvfb writes the display it chose, then \n
            number = wait_for(pipe.readline, 20, "Xvfb to pick a display").strip().decode()
        self.display = f":{number}"

    def _start_dbus(self) -> None:
        argv = ["dbus-daemon", "--session", "--nofork", "--print-address=1"]
        env = None
        if self.keyring_kind == "none":  # activates nothing: there is no Secret Service
            config = self.workdir / "bus.conf"
            config.write_text(BUS_CONFIG, encoding="utf-8")
            argv = ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"]
        elif self.keyring_kind in ("fresh", "locked"):
            env = self._session_env()
        popen = self._spawn("dbus", argv, stdout=subprocess.PIPE, env=env)
        assert popen.stdout is not None
        self.bus_address = popen.stdout.readline().decode().strip()
        assert self.bus_address, "dbus-daemon printed no address"

    def _start_keyring(self) -> None:
        """The Secret Service a desktop session has, its login keyring unlocked: the app's
        keyring resolves to it by itself. Started here, the bus never activates a locked one."""
        if self.keyring_kind == "unlocked" and shutil.which(DAEMON) is not None:
            self.keyring = KeyringDaemon(self.bus_address, self.workdir).start()

    def _start_window_manager(self) -> None:
        """openbox, as a user's desktop has one: decorations, focus, stacking, struts."""
        config = self.workdir / "openbox-rc.xml"
        config.write_text(OPENBOX_RC)
        self._spawn("openbox", ["openbox", "--sm-disable", "--config-file", str(config)],
                    env=self.env)  # fmt: skip
        wait_for(lambda: "window id" in self.xprop("-root", "_NET_SUPPORTING_WM_CHECK"), 20,
                 "openbox to manage the screen")  # fmt: skip

    def _start_notifications(self) -> None:
        if self.notifications_kind == "real":
            self._spawn("notification-daemon", [REAL_NOTIFICATION_DAEMON], env=self.env)
            wait_for(self._notifications_owned, 20, "notification-daemon on the bus")
            return
        popen = self._spawn(
            "notifications", [sys.executable, str(NOTIFY_SERVER)], stdout=subprocess.PIPE,
            env=self.env,
        )  # fmt: skip
        assert popen.stdout is not None
        line = popen.stdout.readline().decode().strip()
        assert line == "ready", f"the test notification server did not start ({line!r})"

    def _start_tray(self) -> None:
        self._spawn(
            "trayer",
            ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request",
             "--height", str(TRAY_HEIGHT), "--SetDockType", "true", "--transparent", "true",
             "--alpha", "0", "--tint", "0x2b2b3a", "--expand", "true"],
            env=self.env,
        )  # fmt: skip
        wait_for(self.tray_window, 20, "trayer's window")

    @property
    def env(self) -> dict[str, str]:
        env = {
            k: v for k, v in os.environ.items()
            if not k.startswith(("DISPLAY", "WAYLAND", "DBUS_", "XDG_SESSION", "PYSTRAY"))
        }  # fmt: skip
        env.update(
            DISPLAY=self.display,
            DBUS_SESSION_BUS_ADDRESS=self.bus_address,
            GDK_BACKEND="x11",
            NO_AT_BRIDGE="1",  # no accessibility bus in this session
            XDG_SESSION_TYPE="x11",
        )
        return env

    # ---- X11 -------------------------------------------------------------------------------

    def run(self, *argv: str, check: bool = True, timeout: float = 10) -> str:
        done = subprocess.run(
            argv, env=self.env, capture_output=True, text=True, timeout=timeout, check=False
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
        return done.stdout

    def xprop(self, *args: str) -> str:
        return self.run("xprop", *args, check=False)

    def xdotool(self, *args: str, check: bool = True) -> str:
        return self.run("xdotool", *args, check=check)

    def tray_window(self) -> str | None:
        out = self.xdotool("search", "--onlyvisible", "--class", "trayer", check=False).split()
        return out[0] if out else None

    def geometry(self, window: str) -> tuple[int, int, int, int]:
        """(x, y, width, height) of a window in root coordinates."""
        values: dict[str, int] = {}
        for line in self.run("xwininfo", "-id", window).splitlines():
            line = line.strip()
            for key, name in (("Absolute upper-left X:", "x"), ("Absolute upper-left Y:", "y"),
                              ("Width:", "w"), ("Height:", "h")):  # fmt: skip
                if line.startswith(key):
                    values[name] = int(line.split(":", 1)[1])
        return values["x"], values["y"], values["w"], values["h"]

    def tray_icons(self) -> list[tuple[str, tuple[int, int, int, int]]]:
        """Mapped windows inside trayer that have an icon's size: the docked icons."""
        tray = self.tray_window()
        if tray is None:
            return []
        icons = []
        for line in self.run("xwininfo", "-tree", "-id", tray).splitlines():
            parts = line.split()
            if not parts or not parts[0].startswith("0x"):
                continue
            geometry = next((p for p in parts if "x" in p and "+" in p and p[0].isdigit()), "")
            if not geometry:
                continue
            size = geometry.split("+")[0]
            width, height = (int(v) for v in size.split("x"))
            if 12 <= width <= 64 and 12 <= height <= 64:
                icons.append((parts[0], self.geometry(parts[0])))
        return icons

    def visible_windows(self, name: str, min_width: int = 100) -> list[str]:
        """Mapped windows whose title matches; small ones (the tray icon's own window, whose
        title is the tooltip) are left out."""
        found = self.xdotool("search", "--onlyvisible", "--name", name, check=False).split()
        return [w for w in found if self.geometry(w)[2] >= min_width]

    def top_windows(self) -> set[str]:
        """Every mapped top-level window (menus have no title, so match them all)."""
        return set(
            self.xdotool("search", "--onlyvisible", "--maxdepth", "1", "", check=False).split()
        )

    def screenshot(self, name: str) -> Image.Image:
        image = ImageGrab.grab(xdisplay=self.display)
        image.save(self.artifacts / f"{name}.png")
        return image

    # ---- notifications ---------------------------------------------------------------------

    def _notifications_owned(self) -> bool:
        from gi.repository import Gio, GLib

        bus = self._bus()
        try:
            (owned,) = bus.call_sync(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "NameHasOwner", GLib.Variant("(s)", ("org.freedesktop.Notifications",)),
                GLib.VariantType("(b)"), Gio.DBusCallFlags.NONE, 5000, None,
            ).unpack()  # fmt: skip
            return bool(owned)
        finally:
            bus.close_sync(None)

    def _bus(self) -> Any:
        from gi.repository import Gio

        flags = (
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        )
        return Gio.DBusConnection.new_for_address_sync(self.bus_address, flags, None, None)

    def _control(self, method: str, args: Any = None, reply: str | None = None) -> Any:
        from gi.repository import Gio, GLib

        bus = self._bus()
        try:
            result = bus.call_sync(
                "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                "org.metona.TestNotifications", method, args,
                GLib.VariantType(reply) if reply else None, Gio.DBusCallFlags.NONE, 5000, None,
            )  # fmt: skip
            return result.unpack() if result is not None else None
        finally:
            bus.close_sync(None)

    def notifications(self) -> list[dict[str, Any]]:
        (text,) = self._control("Recorded", None, "(s)")
        records: list[dict[str, Any]] = json.loads(text)
        return records

    def invoke(self, nid: int, action: str) -> None:
        from gi.repository import GLib

        self._control("Invoke", GLib.Variant("(us)", (nid, action)))


class AppProcess:
    """``python -m tray_app`` in the test desktop, with its own METONA_HOME."""

    def __init__(self, desktop: DesktopEnv, home: Path, name: str = "app") -> None:
        self.desktop = desktop
        self.home = home
        self.name = name
        self.instance = SingleInstance(AppPaths.under(home).runtime_dir)
        self.child: Child | None = None

    @property
    def env(self) -> dict[str, str]:
        env = self.desktop.env
        env.update(
            METONA_HOME=str(self.home),
            METONA_TEST_HOOKS="1",
            XDG_CONFIG_HOME=str(self.home / "xdg-config"),
            XDG_CACHE_HOME=str(self.home / "xdg-cache"),
            XDG_DATA_HOME=str(self.home / "xdg-data"),
            PYTHONPATH=str(ROOT),
        )
        return env

    def launch(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.desktop.artifacts / f"{self.name}-{int(time.time() * 1000)}.log", "wb")  # noqa: SIM115
        return subprocess.Popen(
            [sys.executable, "-m", "tray_app", *args], cwd=ROOT, env=self.env,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def start(self) -> AppProcess:
        self.child = Child(self.name, self.launch())
        wait_for(self._ready, 90, "the app to dock its icon", interval=0.1)
        return self

    def _ready(self) -> bool:
        assert self.child is not None
        if self.child.popen.poll() is not None:
            raise AssertionError(f"the app exited early with {self.child.popen.returncode}")
        state = self.state()
        # The popup process starts only when the popup is first shown.
        return bool(state["tray_ready"] and state["hotkey"])

    def send(self, command: str, **fields: Any) -> dict[str, Any]:
        reply = self.instance.send({"command": command, **fields}, timeout=30)
        assert reply.get("ok"), f"{command} failed: {reply}"
        return reply

    def state(self) -> dict[str, Any]:
        return self.send("state")

    def core(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self.send("core", method=method, args=list(args), kwargs=kwargs)["result"]

    def eval_js(self, script: str) -> Any:
        return self.send("eval_js", script=script)["result"]

    def stop(self) -> None:
        if self.child is None:
            return
        if self.child.popen.poll() is None:
            with contextlib.suppress(InstanceError, AssertionError):
                self.instance.send({"command": "quit"}, timeout=2)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.child.popen.wait(5)
        self.child.stop()
