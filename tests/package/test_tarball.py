"""The tar.gz installed for one user, no root: install.sh puts the program,
the command, the menu entry and the icons under a prefix (here one with spaces, CJK and a
quote), the installed command runs, and uninstall.sh keeps settings and chats unless --purge."""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

from tests.package.test_deb import ICON_SIZES


def exec_argv(path: Path) -> list[str]:
    """The command a desktop (GLib) runs for the entry: its Exec= unescaped, then split."""
    from gi.repository import GLib

    keys = GLib.KeyFile()
    keys.load_from_file(str(path), GLib.KeyFileFlags.NONE)
    ok, argv = GLib.shell_parse_argv(keys.get_string("Desktop Entry", "Exec"))
    assert ok
    return list(argv)


def unpack(tarball: Path, into: Path) -> Path:
    with tarfile.open(tarball) as tar:
        tar.extractall(into, filter="tar")
    (top,) = list(into.iterdir())
    return top


def run(argv: list[str], home: Path) -> str:
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{argv}: {result.stdout}{result.stderr}"
    return result.stdout


def test_install_run_uninstall_keep_then_purge(tarball: Path, tmp_path: Path) -> None:
    top = unpack(tarball, tmp_path / "unpacked")
    home = tmp_path / "home"
    prefix = tmp_path / 'my apps 应用 "q"'
    out = run(["sh", str(top / "install.sh"), "--prefix", str(prefix)], home)
    app = prefix / "opt" / "metona-tray"
    assert f"installed in {app}" in out

    command = prefix / "bin" / "metona-tray"
    assert command.is_symlink() and command.resolve() == (app / "metona-tray").resolve()
    assert run([str(command), "--version"], home).startswith("metona-tray ")
    assert exec_argv(prefix / "share" / "applications" / "metona-tray.desktop") == [
        str(app / "metona-tray")
    ], "Exec= quoted per the Desktop Entry spec, as GLib reads it"
    for size in ICON_SIZES:
        assert (prefix / f"share/icons/hicolor/{size}x{size}/apps/metona-tray.png").is_file()

    # What the app itself writes: settings, a chat database, and the start-at-login entry.
    settings = home / "config" / "metona-tray" / "settings.json"
    chats = home / "data" / "metona-tray" / "chats.sqlite3"
    autostart = home / "config" / "autostart" / "metona-tray.desktop"
    for path in (settings, chats, autostart):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")

    run(["sh", str(top / "install.sh"), "--prefix", str(prefix)], home)  # an update in place
    assert (app / "metona-tray").is_file() and not (prefix / "opt" / "metona-tray.old").exists()

    out = run(["sh", str(app / "uninstall.sh")], home)
    assert "settings and chats are kept" in out
    assert not app.exists() and not os.path.lexists(command)
    assert not (prefix / "share" / "applications" / "metona-tray.desktop").exists()
    assert not list((prefix / "share" / "icons").rglob("metona-tray.png"))
    assert not autostart.exists(), "a login entry would start a program that is gone"
    assert settings.is_file() and chats.is_file()

    run(["sh", str(top / "install.sh"), "--prefix", str(prefix)], home)
    out = run(["sh", str(app / "uninstall.sh"), "--purge"], home)
    assert "with its settings and chats" in out
    assert not settings.exists() and not chats.exists() and not app.exists()
