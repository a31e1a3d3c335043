"""PyInstaller entry point: the same ``metona-tray`` command as the installed package."""

from tray_app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
