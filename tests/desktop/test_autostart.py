"""Start at login: the entry each OS reads, written and removed by the setting."""

from __future__ import annotations

import configparser
import plistlib
from pathlib import Path

import pytest

from tray_app.desktop import autostart

ARGV = ["/opt/metona/bin/python", "-m", "tray_app"]


def test_linux_desktop_entry_written_and_removed(tmp_path: Path) -> None:
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    where = autostart.set_enabled(True, platform="linux", environ=environ, argv=ARGV)
    path = tmp_path / "cfg" / "autostart" / "metona-tray.desktop"
    assert where == str(path)
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(path)
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    assert section["Exec"] == "/opt/metona/bin/python -m tray_app"
    assert section["X-GNOME-Autostart-enabled"] == "true"
    assert autostart.is_enabled(platform="linux", environ=environ)

    autostart.set_enabled(False, platform="linux", environ=environ, argv=ARGV)
    assert not path.exists()
    assert not autostart.is_enabled(platform="linux", environ=environ)
    autostart.set_enabled(False, platform="linux", environ=environ, argv=ARGV)  # idempotent


def test_linux_entry_defaults_to_home_config_and_carries_metona_home(tmp_path: Path) -> None:
    environ = {"HOME": str(tmp_path), "METONA_HOME": "/data/my metona"}
    autostart.set_enabled(True, platform="linux", environ=environ, argv=ARGV)
    text = (tmp_path / ".config" / "autostart" / "metona-tray.desktop").read_text()
    assert 'Exec=env "METONA_HOME=/data/my metona" /opt/metona/bin/python -m tray_app' in text


def test_exec_quoting_follows_the_desktop_entry_spec() -> None:
    entry = autostart.desktop_entry(["/Apps/My App/run", "--flag=50%", 'say "hi"', "$HOME"])
    exec_line = next(line for line in entry.splitlines() if line.startswith("Exec="))
    assert exec_line == r'Exec="/Apps/My App/run" "--flag=50%%" "say \\"hi\\"" "\\$HOME"'


def test_exec_reads_back_as_the_same_argv_through_glib(tmp_path: Path) -> None:
    """What a desktop runs: the value string-unescaped by GLib's key file, then split."""
    glib = pytest.importorskip("gi.repository.GLib")
    argv = ["/opt/我的 app/run", 'say "hi"', "C:\\path\\x", "`tick`", "$HOME", "50%", "🎉"]
    path = tmp_path / "entry.desktop"
    path.write_text(autostart.desktop_entry(argv), encoding="utf-8")
    keys = glib.KeyFile()
    keys.load_from_file(str(path), glib.KeyFileFlags.NONE)
    value = keys.get_string("Desktop Entry", "Exec").replace("%%", "%")  # the field code %%
    ok, parsed = glib.shell_parse_argv(value)
    assert ok and list(parsed) == argv


def test_macos_launch_agent(tmp_path: Path) -> None:
    where = autostart.set_enabled(
        True, platform="darwin", environ={"METONA_HOME": "/x"}, argv=ARGV, home=tmp_path
    )
    plist = plistlib.loads(Path(where).read_bytes())
    assert Path(where) == tmp_path / "Library" / "LaunchAgents" / "com.metona.tray.plist"
    assert plist["ProgramArguments"] == ARGV
    assert plist["RunAtLoad"] is True
    assert plist["EnvironmentVariables"] == {"METONA_HOME": "/x"}
    autostart.set_enabled(False, platform="darwin", environ={}, argv=ARGV, home=tmp_path)
    assert not Path(where).exists()


def test_windows_run_value_quotes_paths_with_spaces() -> None:
    command = autostart.windows_command([r"C:\Program Files\Metona\metona-tray.exe"])
    assert command == r'"C:\Program Files\Metona\metona-tray.exe"'


def test_launch_command_is_this_python() -> None:
    argv = autostart.launch_command()
    assert argv[1:] == ["-m", "tray_app"]
