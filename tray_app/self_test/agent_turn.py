"""Self-test checks that run the app's own code in a temporary folder: settings and the chat
store open, save and read back, then one scripted agent turn (a tool call and an answer) runs
headless against the in-process ``FakeModel``. Nothing of the user's settings or chats is read."""

from __future__ import annotations

import time
from pathlib import Path

from tray_app.self_test.fake_model import ANSWER_OK, MARKER_FILE, MODEL, FakeModel
from tray_app.self_test.files import Missing

TURN_TIMEOUT = 60.0
TITLE = "\u81ea\u68c0 self-test 🧪 \u202eRTL"  # CJK, an emoji, a direction override


def check_store(root: Path) -> str:
    """Settings written and read back, a chat with hard text stored and found again."""
    from tray_app.base.paths import AppPaths
    from tray_app.i18n import languages
    from tray_app.store.opening import open_chat_store
    from tray_app.store.records import MessageRecord
    from tray_app.store.settings import Settings, load_settings, save_settings

    paths = AppPaths.under(root / "store")
    paths.ensure()
    language = languages()[-1]  # a value other than the default "system"
    save_settings(Settings(default_model=MODEL, language=language), paths.settings_file)
    settings = load_settings(paths.settings_file)
    if settings.default_model != MODEL or settings.language != language:
        raise Missing(f"settings did not read back from {paths.settings_file}")
    chats, warning = open_chat_store(paths)
    try:
        if warning:
            raise Missing(f"the chat store did not open: {warning}")
        session = chats.create_session(model=MODEL, workspace=None)
        chats.add_message(
            MessageRecord(session_id=session.id, turn_id="t-self", role="user", content=TITLE)
        )
        stored = [m.content for m in chats.messages(session.id)]
    finally:
        close = getattr(chats, "close", None)
        if close is not None:
            close()
    if stored != [TITLE]:
        raise Missing(f"the chat store read back {stored!r}")
    return f"settings and chats in {paths.database_file.name} (SQLite)"


def check_agent_turn(root: Path) -> str:
    """One turn through Core: provider over HTTP, a ``list_directory`` call, the answer."""
    from tray_app.base.events import ToolCallUpdate, TurnFailed, TurnFinished
    from tray_app.base.paths import AppPaths
    from tray_app.core.bootstrap import start_app
    from tray_app.store.settings import Settings

    workspace = root / "workspace"
    workspace.mkdir()
    (workspace / MARKER_FILE).write_text("✓\n", encoding="utf-8")
    paths = AppPaths.under(root / "app")
    with FakeModel(str(workspace)) as fake:
        settings = Settings(
            endpoint=fake.url, default_model=MODEL, allowed_dirs=[str(workspace)], think=False
        )
        running = start_app(paths, settings=settings, persist_settings=False)
        try:
            core = running.core
            events = core.bus.subscribe()
            session = core.new_session(workspace=str(workspace))["id"]
            core.send_message(session, "list the folder")
            tools: list[str] = []
            deadline = time.monotonic() + TURN_TIMEOUT
            while True:
                event = events.get(timeout=max(0.0, deadline - time.monotonic()))
                if event is None:
                    raise Missing(f"the turn did not finish in {TURN_TIMEOUT:.0f} s")
                if isinstance(event, ToolCallUpdate) and event.status in ("success", "error"):
                    tools.append(event.status)
                if isinstance(event, TurnFailed):
                    raise Missing(f"the turn failed: {event.code}: {event.message}")
                if isinstance(event, TurnFinished) and event.session_id == session:
                    break
            answer = [
                m["content"]
                for m in core.get_session(session)["messages"]
                if m["role"] == "assistant" and m["content"]
            ]
        finally:
            running.close()
    if tools != ["success"]:
        raise Missing(f"the tool call ended {tools or 'never'}, not in success")
    if answer[-1:] != [ANSWER_OK]:
        raise Missing(f"unexpected answer {answer[-1:]!r}")
    return f"{fake.chats} model requests, list_directory ran, the answer was stored"
