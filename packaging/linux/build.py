"""Linux installers from the PyInstaller folder ``dist/metona-tray``: a ``.deb`` and a ``tar.gz``.

    python packaging/linux/build.py [--bundle dist/metona-tray] [--out dist]

Both carry the same files: the bundle (``/opt/metona-tray`` in the ``.deb``), a ``.desktop``
entry, the icon in the hicolor theme at the usual sizes, and the ``metona-tray`` command. No
autostart entry: the app writes one in the user's own folder only when they enable "Start at
login". The ``tar.gz`` adds ``install.sh`` / ``uninstall.sh`` for a user's own folder (no root).
Prints what it wrote and the unpacked size of the bundle.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from tray_app import __version__  # noqa: E402
from tray_app.desktop.tray.icons import tray_image  # noqa: E402

NAME = "metona-tray"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
#: What the bundle leaves to the system (see metona-tray.spec): WebKitGTK must match its own
#: helper processes, GTK and the tray indicator come with the desktop.
DEPENDS = [
    "gir1.2-webkit2-4.1",
    "libwebkit2gtk-4.1-0",
    "gir1.2-gtk-3.0",
    "libgtk-3-0",
    "gir1.2-ayatanaappindicator3-0.1",
    "libayatana-appindicator3-1",
]
#: bubblewrap: run_command's sandbox; the colour emoji font: emoji in paths, names and code
#: show as pictures instead of empty boxes (WebKitGTK draws with the system's fonts);
#: gnome-keyring: the Secret Service that keeps API keys and tool servers' secrets.
RECOMMENDS = ["bubblewrap", "fonts-noto-color-emoji", "gnome-keyring"]
DESCRIPTION = """\
Tray chat with a local model that works on your files
 A small chat in the system tray that talks to a local model (Ollama or any
 OpenAI-compatible server). The model can read and change files through
 sandboxed tools; every risky call waits for your approval and can be undone."""


def tree_size(folder: Path) -> int:
    """Bytes of the regular files below ``folder`` (symlinks not followed)."""
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total


def write_icons(share: Path) -> list[Path]:
    big = tray_image("idle", size=1024)
    written = []
    for size in ICON_SIZES:
        path = share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{NAME}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        big.resize((size, size), 1).save(path)  # 1: LANCZOS
        written.append(path)
    return written


def write_share(share: Path, exec_line: str) -> None:
    """``share/applications/metona-tray.desktop`` and the icons."""
    entry = (HERE / f"{NAME}.desktop").read_text(encoding="utf-8")
    target = share / "applications" / f"{NAME}.desktop"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(entry.replace("@EXEC@", exec_line), encoding="utf-8")
    write_icons(share)


def debian_arch() -> str:
    try:
        return subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)


def build_deb(bundle: Path, work: Path, out: Path, arch: str) -> Path:
    root = work / "deb-root"
    shutil.rmtree(root, ignore_errors=True)
    opt = root / "opt" / NAME
    shutil.copytree(bundle, opt, symlinks=True)
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / NAME).symlink_to(f"/opt/{NAME}/{NAME}")
    write_share(root / "usr" / "share", NAME)
    doc = root / "usr" / "share" / "doc" / NAME
    doc.mkdir(parents=True)
    shutil.copy2(HERE / "copyright", doc / "copyright")
    control = root / "DEBIAN"
    control.mkdir()
    size_kb = (tree_size(root) + 1023) // 1024
    (control / "control").write_text(
        f"Package: {NAME}\nVersion: {__version__}\nArchitecture: {arch}\n"
        "Maintainer: Metona Tray developers <metona-tray@users.noreply.invalid>\n"
        f"Installed-Size: {size_kb}\nSection: utils\nPriority: optional\n"
        f"Depends: {', '.join(DEPENDS)}\nRecommends: {', '.join(RECOMMENDS)}\n"
        f"Description: {DESCRIPTION}\n",
        encoding="utf-8",
    )
    for script in ("postinst", "postrm"):
        shutil.copy2(HERE / script, control / script)
        (control / script).chmod(0o755)
    deb = out / f"{NAME}_{__version__}_{arch}.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(root), str(deb)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return deb


def build_tarball(bundle: Path, work: Path, out: Path, arch: str) -> Path:
    top = f"{NAME}-{__version__}-linux-{arch}"
    root = work / "tar-root" / top
    shutil.rmtree(root.parent, ignore_errors=True)
    root.mkdir(parents=True)
    write_share(root / "share", "@EXEC@")  # install.sh writes the real path
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy2(HERE / script, root / script)
        (root / script).chmod(0o755)
    tarball = out / f"{top}.tar.gz"
    with tarfile.open(tarball, "w:gz", compresslevel=6) as tar:
        tar.add(root, arcname=top)
        tar.add(bundle, arcname=f"{top}/{NAME}")
    return tarball


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / NAME)
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "linux-dist")
    args = parser.parse_args()
    if not (args.bundle / NAME).is_file():
        print(f"no bundle at {args.bundle}: run pyinstaller first (make package)", file=sys.stderr)
        return 1
    args.work.mkdir(parents=True, exist_ok=True)
    arch = debian_arch()
    deb = build_deb(args.bundle, args.work, args.out, arch)
    tarball = build_tarball(args.bundle, args.work, args.out, arch)
    for path in (deb, tarball):
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
              f" ({path.stat().st_size / 1e6:.1f} MB)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
