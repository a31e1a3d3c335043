"""``python -m tray_app`` is the same as the ``metona-tray`` command."""

from tray_app.cli.cli import run

run()
