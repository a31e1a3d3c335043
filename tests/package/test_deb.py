"""The .deb's metadata and files: what it depends on, where the program,
the command, the menu entry and the icons go, and that it adds no autostart entry."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

from PIL import Image

from bench.bundle import TARGET_MB, folder_size

ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
DEPENDS = ("gir1.2-webkit2-4.1", "libwebkit2gtk-4.1-0", "gir1.2-gtk-3.0", "libgtk-3-0",
           "gir1.2-ayatanaappindicator3-0.1", "libayatana-appindicator3-1")  # fmt: skip


def field(deb: Path, name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True
    ).stdout.strip()


def desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.RawConfigParser(strict=True, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return dict(parser["Desktop Entry"])


def test_control_names_the_system_libraries_it_needs(deb_file: Path) -> None:
    depends = [d.strip() for d in field(deb_file, "Depends").split(",")]
    assert set(DEPENDS) <= set(depends)
    recommends = [r.strip() for r in field(deb_file, "Recommends").split(",")]
    assert {"bubblewrap", "fonts-noto-color-emoji"} <= set(recommends), "emoji render as pictures"
    assert field(deb_file, "Package") == "metona-tray"
    assert (
        field(deb_file, "Architecture")
        == subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    installed_kb = int(field(deb_file, "Installed-Size"))
    assert 0 < installed_kb <= TARGET_MB * 1000


def test_program_command_and_ripgrep(deb_root: Path) -> None:
    program = deb_root / "opt" / "metona-tray" / "metona-tray"
    assert program.is_file() and program.stat().st_mode & 0o111
    command = deb_root / "usr" / "bin" / "metona-tray"
    assert command.is_symlink() and str(command.readlink()) == "/opt/metona-tray/metona-tray"
    rg = deb_root / "opt" / "metona-tray" / "rg"
    assert rg.is_file() and rg.stat().st_mode & 0o111, "search_files' rg is bundled"
    size, _count = folder_size(deb_root / "opt" / "metona-tray")
    assert size / 1e6 <= TARGET_MB, f"the bundle is {size / 1e6:.1f} MB"


def test_the_bundle_leaves_the_system_gtk_stack_out(deb_root: Path) -> None:
    names = {p.name for p in (deb_root / "opt" / "metona-tray").rglob("*")}
    for prefix in ("libwebkit2gtk", "libgtk-3", "libgstreamer", "libflite", "libaom", "libdav1d"):
        assert not [n for n in names if n.startswith(prefix)], f"{prefix}* is bundled"


def test_menu_entry_in_both_languages(deb_root: Path) -> None:
    path = deb_root / "usr" / "share" / "applications" / "metona-tray.desktop"
    entry = desktop_entry(path)
    assert entry["Exec"] == "metona-tray" and entry["Icon"] == "metona-tray"
    assert entry["Type"] == "Application" and entry["Terminal"] == "false"
    assert entry["Name[zh_CN]"] and entry["Comment[zh_CN]"] and entry["Comment"]
    validate = shutil.which("desktop-file-validate")
    if validate:
        result = subprocess.run([validate, str(path)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_icons_at_the_usual_sizes(deb_root: Path) -> None:
    for size in ICON_SIZES:
        path = deb_root / f"usr/share/icons/hicolor/{size}x{size}/apps/metona-tray.png"
        with Image.open(path) as image:
            assert image.size == (size, size) and image.mode == "RGBA"


def test_no_autostart_entry_is_installed(deb_root: Path) -> None:
    assert not (deb_root / "etc" / "xdg" / "autostart").exists()
    assert not list(deb_root.rglob("autostart"))


def test_the_program_runs_through_a_symlink_like_usr_bin(deb_root: Path, tmp_path: Path) -> None:
    """/usr/bin/metona-tray is a symlink: the bundle must find its files from the link's target."""
    link = tmp_path / "bin" / "metona-tray"
    link.parent.mkdir()
    link.symlink_to(deb_root / "opt" / "metona-tray" / "metona-tray")
    result = subprocess.run(
        [str(link), "--version"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("metona-tray ")
