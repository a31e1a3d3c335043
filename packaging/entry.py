"""PyInstaller entry point: the same ``metona-tray`` command as the installed package."""

import multiprocessing
import os
import sys

#: Set by PyInstaller's GTK/GdkPixbuf/GI runtime hooks to point GTK into the bundle. On Linux
#: the bundle uses the system's GTK and WebKitGTK (see metona-tray.spec), which must find their
#: own modules: input methods (IBus, Fcitx: needed to type Chinese), pixbuf loaders, themes.
BUNDLED_GTK_VARIABLES = (
    "GTK_DATA_PREFIX", "GTK_EXE_PREFIX", "GTK_PATH", "PANGO_LIBDIR", "PANGO_SYSCONFDIR",
    "GDK_PIXBUF_MODULE_FILE", "GIO_MODULE_DIR",
)  # fmt: skip
SYSTEM_TYPELIBS = ("/usr/lib/{arch}-linux-gnu/girepository-1.0", "/usr/lib64/girepository-1.0",
                   "/usr/lib/girepository-1.0")  # fmt: skip


def use_system_gtk() -> None:
    """Undo the runtime hooks' bundle paths, keeping the bundled typelibs as a last resort."""
    if not (sys.platform.startswith("linux") and getattr(sys, "frozen", False)):
        return
    for name in BUNDLED_GTK_VARIABLES:
        os.environ.pop(name, None)
    arch = os.uname().machine
    system = [p.format(arch=arch) for p in SYSTEM_TYPELIBS if os.path.isdir(p.format(arch=arch))]
    bundled = os.environ.get("GI_TYPELIB_PATH", "")
    os.environ["GI_TYPELIB_PATH"] = os.pathsep.join([*system, *([bundled] if bundled else [])])


use_system_gtk()

from tray_app.cli.cli import run  # noqa: E402

if __name__ == "__main__":
    # The popup window is a multiprocessing (spawn) child: in a frozen build it is this same
    # executable, started with multiprocessing's own arguments, which this call handles.
    multiprocessing.freeze_support()
    run()
