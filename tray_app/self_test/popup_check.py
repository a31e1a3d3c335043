"""Self-test of the popup process: the ``multiprocessing`` spawn child the tray starts.

In a frozen build the child is this same executable started with multiprocessing's arguments,
which only works when the entry point calls ``freeze_support()``: a bundle without it starts a
second app instead of a popup. Two checks:

* ``check_spawn`` (always): a spawn child imports the popup's modules and answers over the
  popup's own ``Link``;
* ``check_popup_window`` (with a display): the real popup child, its window kept hidden, loads
  the page, which boots through a real ``Bridge`` on a Core in the temporary folder; the page's
  prompt box is then found through the child's ``eval``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tray_app.self_test.fake_model import MODEL, FakeModel
from tray_app.self_test.files import Missing

START_TIMEOUT = 60.0
PAGE_CHECK = (
    "(function () { var a = document.getElementById('app');"
    " return !!(a && a.dataset.ready === 'true' && document.getElementById('prompt')); })()"
)


def answer_ping(conn: Connection) -> None:
    """The spawn child's target: load the popup's modules, then answer one ``ping``."""
    import os

    from tray_app.desktop.popup import child  # noqa: F401  (what a popup child loads)
    from tray_app.desktop.popup.link import Link, Message

    done = threading.Event()

    def on_message(message: Message) -> None:
        if message.get("op") == "ping":
            link.answer(message, {"pid": os.getpid()})
            done.set()

    link = Link(conn, on_message, on_closed=done.set, name="metona-self-test-child")
    link.start()  # after ``link`` is bound: the ping may arrive at once
    done.wait(START_TIMEOUT)
    link.join(2.0)


def check_spawn() -> str:
    from tray_app.desktop.popup.link import Link

    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe(duplex=True)
    process = ctx.Process(target=answer_ping, args=(theirs,), name="metona-self-test")
    process.start()
    theirs.close()
    link = Link(ours, lambda _message: None, name="metona-self-test").start()
    try:
        reply = link.request({"op": "ping"}, timeout=START_TIMEOUT)
    except (TimeoutError, RuntimeError) as exc:
        raise Missing(
            f"a spawned child did not answer ({exc}); is freeze_support() called?"
        ) from None
    finally:
        link.close()
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join(5)
    if not isinstance(reply, dict) or reply.get("pid") != process.pid:
        raise Missing(f"the spawned child answered {reply!r}")
    return f"a spawn child (pid {process.pid}) loaded the popup modules and answered"


def log_tail(path: Path, lines: int = 5, limit: int = 2000) -> str:
    """The last lines of the popup's log, for the report (the temporary folder goes away)."""
    try:
        with path.open("rb") as log:
            log.seek(max(0, path.stat().st_size - limit))
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return "(no log)"
    return " | ".join(text.strip().splitlines()[-lines:]) or "(empty)"


def check_popup_window(root: Path) -> str:
    from tray_app.base.paths import AppPaths
    from tray_app.core.bootstrap import start_app
    from tray_app.desktop.popup import child
    from tray_app.desktop.popup.bridge import Bridge, bridge_commands
    from tray_app.desktop.popup.link import Link, LinkClosed, Message
    from tray_app.store.settings import Settings
    from tray_app.web_files import web_root

    workspace = root / "popup-workspace"
    workspace.mkdir()
    with FakeModel(str(workspace)) as fake:
        settings = Settings(endpoint=fake.url, default_model=MODEL, allowed_dirs=[str(workspace)])
        paths = AppPaths.under(root / "popup")
        running = start_app(paths, settings=settings, persist_settings=False)
        bridge = Bridge(running.core)
        ready = threading.Event()
        link: Link | None = None

        def answer_call(to: Link, message: Message) -> None:
            """A page command, answered by the real Bridge (as the tray's popup stand-in does)."""
            to.answer(message, getattr(bridge, str(message.get("command")))(message.get("payload")))

        def on_message(message: Message) -> None:
            if message.get("op") == "state" and message.get("page_ready"):
                ready.set()
            elif message.get("op") == "call" and link is not None:
                threading.Thread(target=answer_call, args=(link, message), daemon=True).start()

        config: dict[str, Any] = {
            "url": str(web_root() / "index.html"),
            "commands": bridge_commands(),
            "size": [460, 660],
            "show": False,
            "log_file": str(root / "popup.log"),
        }
        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe(duplex=True)
        process = ctx.Process(target=child.main, args=(theirs, config), name="metona-popup")
        process.start()
        theirs.close()
        link = Link(ours, on_message, on_closed=ready.set, name="metona-self-test-popup")
        link.start()
        try:
            if not ready.wait(START_TIMEOUT) or link.closed.is_set():
                raise Missing(
                    f"the popup's page did not load (exit {process.exitcode}); its log ends: "
                    + log_tail(root / "popup.log")
                )
            reply = link.request({"op": "eval", "script": PAGE_CHECK}, timeout=START_TIMEOUT)
            if not (isinstance(reply, dict) and reply.get("value") is True):
                raise Missing(f"the popup's page did not boot: {reply!r}")
        finally:
            with contextlib.suppress(LinkClosed):
                link.send({"op": "quit"})
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)
            link.close()
            running.close()
    return f"the popup process (pid {process.pid}) loaded the page and it booted"
