"""The real desktop keyring for the tests: gnome-keyring-daemon's Secret Service on a D-Bus
session bus, its login keyring created and unlocked with a fixed test password fed on stdin
(``--unlock``), so a ``default`` collection exists and keyring's SecretService backend is what
``keyring.get_keyring()`` resolves to by itself (no ``PYTHON_KEYRING_BACKEND``).

``PrivateBus`` is a session bus that activates nothing: when a test stops the daemon, the
Secret Service is gone (a normal session bus would start a fresh, locked daemon instead).
``KeyringDaemon`` runs on any bus (the end-to-end desktop's too). Both wait on conditions (the
name ``org.freedesktop.secrets`` owned, the default collection unlocked), never on sleeps, and
are stopped by process group.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.waiting import eventually

DAEMON = "gnome-keyring-daemon"
SECRETS_NAME = "org.freedesktop.secrets"
TEST_PASSWORD = "metona-test-login"  # the throwaway login keyring's, in a temporary folder
START_WAIT = 30.0  # a loaded CI machine starts daemons slowly

# A session bus with no service directories: nothing is activated on demand.
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def why_not() -> str | None:
    """Why the real keyring cannot run here (None: it can)."""
    missing = [tool for tool in ("dbus-daemon", DAEMON) if shutil.which(tool) is None]
    if missing:
        return f"missing {', '.join(missing)} (scripts/install-test-deps.sh installs them as root)"
    try:
        import secretstorage  # noqa: F401
    except ImportError:
        return "secretstorage is missing (keyring installs it on Linux)"
    return None


def _wait(check: Any, what: str, timeout: float = START_WAIT) -> Any:
    """A D-Bus name or collection not up yet raises: that means "not yet" here."""
    return eventually(check, timeout, what, ignoring=(Exception,))


def _stop(popen: subprocess.Popen[bytes] | None) -> None:
    """TERM the process group, then KILL it: nothing may outlive the test."""
    if popen is None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(popen.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(5)
            return


def connect(address: str) -> Any:
    """A jeepney connection to the bus at ``address`` (the caller closes it)."""
    from jeepney.io.blocking import open_dbus_connection

    return open_dbus_connection(bus=address)


def name_owned(address: str, name: str = SECRETS_NAME) -> bool:
    from jeepney.bus_messages import message_bus

    with connect(address) as bus:
        reply = bus.send_and_get_reply(message_bus.NameHasOwner(name), timeout=5)
        return bool(reply.body[0])


def stored(address: str, attributes: dict[str, str]) -> list[str]:
    """The secrets the Secret Service itself holds for ``attributes``: read straight from the
    daemon, past keyring, so a test sees what really went to the OS keyring."""
    import secretstorage

    with connect(address) as bus:
        return [
            item.get_secret().decode("utf-8")
            for item in secretstorage.search_items(bus, attributes)
        ]


class PrivateBus:
    """``dbus-daemon`` with its own configuration (no activation), for one test session."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.address = ""
        self._popen: subprocess.Popen[bytes] | None = None

    def start(self) -> PrivateBus:
        config = self.folder / "bus.conf"
        config.write_text(BUS_CONFIG, encoding="utf-8")
        self._popen = subprocess.Popen(
            ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        assert self._popen.stdout is not None
        self.address = self._popen.stdout.readline().decode().strip()
        assert self.address, "dbus-daemon printed no address"
        return self

    def stop(self) -> None:
        _stop(self._popen)
        self._popen = None


class KeyringDaemon:
    """``gnome-keyring-daemon --foreground --unlock --components=secrets`` on ``address``,
    with its keyrings in ``folder``; ``start`` returns once the default collection is there
    and unlocked. ``unlock=False``: a new account's daemon, with no login keyring (no default
    collection) until something creates one."""

    def __init__(self, address: str, folder: Path, *, unlock: bool = True) -> None:
        self.address = address
        self.folder = folder
        self.unlock = unlock
        self._popen: subprocess.Popen[bytes] | None = None
        # the daemon's control socket lives here: keep the path short (AF_UNIX: 108 bytes)
        self._runtime = Path(tempfile.mkdtemp(prefix="mk-"))

    @property
    def env(self) -> dict[str, str]:
        return {"DBUS_SESSION_BUS_ADDRESS": self.address}

    def start(self) -> KeyringDaemon:
        home = self.folder / "home"
        (home / "data").mkdir(parents=True, exist_ok=True)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_RUNTIME_DIR": str(self._runtime),
            "DBUS_SESSION_BUS_ADDRESS": self.address,
        }
        log = open(self.folder / "gnome-keyring.log", "wb")  # noqa: SIM115
        unlock = ["--unlock"] if self.unlock else []
        self._popen = subprocess.Popen(
            [DAEMON, "--foreground", *unlock, "--components=secrets"],
            stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True,
        )  # fmt: skip
        assert self._popen.stdin is not None
        if self.unlock:
            self._popen.stdin.write(TEST_PASSWORD.encode())
        self._popen.stdin.close()  # end of the password: the daemon unlocks the login keyring
        _wait(lambda: self._running() and name_owned(self.address), f"{SECRETS_NAME} owned")
        if self.unlock:
            _wait(self._default_unlocked, "the default collection to be unlocked")
        return self

    def _running(self) -> bool:
        assert self._popen is not None
        if self._popen.poll() is not None:
            log = (self.folder / "gnome-keyring.log").read_text(errors="replace")
            raise AssertionError(f"{DAEMON} exited with {self._popen.returncode}: {log}")
        return True

    def _default_unlocked(self) -> bool:
        import secretstorage

        self._running()
        with connect(self.address) as bus:
            return not secretstorage.Collection(bus).is_locked()

    def stop(self) -> None:
        """Stop the daemon and wait until the Secret Service has left the bus."""
        _stop(self._popen)
        self._popen = None
        with contextlib.suppress(OSError):
            _wait(lambda: not name_owned(self.address), f"{SECRETS_NAME} released")
        shutil.rmtree(self._runtime, ignore_errors=True)


# ---- fixtures (a pytest plugin: tests/conftest.py lists this module) ---------------------------


@pytest.fixture(scope="session")
def secret_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KeyringDaemon]:
    """One bus and one unlocked gnome-keyring-daemon per test session (per xdist worker)."""
    with running_keyring(tmp_path_factory.mktemp("secret-service")) as daemon:
        yield daemon


@contextlib.contextmanager
def running_keyring(folder: Path, *, unlock: bool = True) -> Iterator[KeyringDaemon]:
    """A private bus with an unlocked keyring daemon on it (``unlock=False``: one with no
    login keyring yet), both stopped at the end."""
    reason = why_not()
    if reason:
        pytest.skip(reason)
    folder.mkdir(parents=True, exist_ok=True)
    bus = PrivateBus(folder).start()
    daemon: KeyringDaemon | None = None
    try:
        daemon = KeyringDaemon(bus.address, folder, unlock=unlock).start()
        yield daemon
    finally:
        if daemon is not None:
            daemon.stop()
        bus.stop()


def _rejudge_backends() -> None:
    """keyring judges which backends work once a process: judge again on the next look."""
    import keyring.backend

    with contextlib.suppress(KeyError):  # not judged yet
        keyring.backend.get_all_keyring.reset()


def use_keyring(daemon: KeyringDaemon, monkeypatch: pytest.MonkeyPatch, config: Path) -> Any:
    """Point this process (and the subprocesses it starts) at ``daemon``'s bus and let keyring
    choose its backend again, by itself; returns the backend that was in force before."""
    import keyring
    import keyring.core

    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", daemon.address)
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))  # no keyringrc.cfg of the machine's
    previous = keyring.get_keyring()
    _rejudge_backends()
    keyring.core.init_backend()
    return previous


def restore_keyring(previous: Any) -> None:
    """Undo ``use_keyring``: the backend in force before, judged again on the next look."""
    import keyring

    keyring.set_keyring(previous)
    _rejudge_backends()


@pytest.fixture
def real_keyring(
    secret_service: KeyringDaemon, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[KeyringDaemon]:
    """The session's real keyring for one test; the app's entries are removed afterwards."""
    previous = use_keyring(secret_service, monkeypatch, tmp_path / "xdg-config")
    try:
        yield secret_service
    finally:
        restore_keyring(previous)
        forget(secret_service.address, {"service": "metona-tray"})


def forget(address: str, attributes: dict[str, str]) -> None:
    import secretstorage

    with connect(address) as bus:
        for item in secretstorage.search_items(bus, attributes):
            item.delete()
