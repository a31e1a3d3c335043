"""End a finished terminal command without the interpreter's teardown.

Why: after a one-shot ``metona-tray chat`` has closed its store and printed its answer, the
interpreter's own shutdown (clearing every module and running its last garbage collections over
pydantic's and httpx's objects) cost ~70 ms of CPU, a fifth of the whole process. Nothing the
user needs happens in it: what must happen at exit is done here first, in the interpreter's own
order, and then the process ends with ``os._exit``.

Used only by the process entry points (``metona-tray``, ``python -m tray_app``, the bundle) and
only for the terminal commands in ``QUICK_COMMANDS``, which close what they opened before they
return. When any other non-daemon thread is still running the normal exit is kept, so such a
thread is waited for exactly as before.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

#: Commands that close their store, core and files before they return (``tray_app.cli.cli``).
QUICK_COMMANDS = frozenset(
    {"chat", "sessions", "export", "changes", "undo", "doctor", "rules", "models"}
)

EXIT_BROKEN_PIPE = 141  # what a shell reports for a program ended by SIGPIPE (128 + 13)


def others_running() -> bool:
    """Whether a non-daemon thread besides this one still runs (the interpreter would wait)."""
    me = threading.current_thread()
    return any(t is not me and t.is_alive() and not t.daemon for t in threading.enumerate())


def end_process(code: int) -> NoReturn:
    """Exit with ``code`` as the interpreter would, less its teardown: the ``atexit`` handlers
    (logging's final flush among them), then stdout and stderr flushed, then ``os._exit``."""
    if others_running():
        raise SystemExit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = EXIT_BROKEN_PIPE  # the reader went away (`| head -1`): end quietly, like main
    except (OSError, ValueError, AttributeError):  # no real stdout: nothing to flush
        pass
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(code)
