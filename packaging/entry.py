"""PyInstaller entry point: the same ``metona-tray`` command as the installed package."""

import multiprocessing

from tray_app.cli import main

if __name__ == "__main__":
    # The popup window is a multiprocessing (spawn) child: in a frozen build it is this same
    # executable, started with multiprocessing's own arguments, which this call handles.
    multiprocessing.freeze_support()
    raise SystemExit(main())
