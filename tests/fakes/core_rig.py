"""A real Core against the fake Ollama server, and a way to wait for its events."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from tests.fakes._server import FakeServer
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tray_app.base.paths import AppPaths
from tray_app.core.service import Core
from tray_app.store.opening import open_chat_store
from tray_app.store.settings import Settings
from tray_app.tools.base import Risk, Tool, ToolContext
from tray_app.tools.registry import ToolRegistry, builtin_tools


class EventLog:
    """Collects every event of a Core in order; tests wait on conditions, never on time."""

    def __init__(self, core: Core) -> None:
        self.events: list[BaseModel] = []
        self._cond = threading.Condition()
        self._sub = core.bus.subscribe()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while not self._stop.is_set():
            event = self._sub.get(timeout=0.05)
            if event is not None:
                with self._cond:
                    self.events.append(event)
                    self._cond.notify_all()

    def wait_for(self, predicate: Callable[[BaseModel], bool], timeout: float = 15.0) -> BaseModel:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events:
                    if predicate(event):
                        return event
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    kinds = [getattr(e, "type", "?") for e in self.events]
                    raise AssertionError(f"event not seen within {timeout}s; saw {kinds}")
                self._cond.wait(remaining)

    def wait_type(self, kind: str, timeout: float = 15.0, **fields: Any) -> Any:
        return self.wait_for(
            lambda e: (
                getattr(e, "type", None) == kind
                and all(getattr(e, k, None) == v for k, v in fields.items())
            ),
            timeout,
        )

    def of_type(self, kind: str) -> list[Any]:
        with self._cond:
            return [e for e in self.events if getattr(e, "type", None) == kind]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._sub.close()


class EchoArgs(BaseModel):
    text: str = Field(description="what to echo")


class NoteArgs(BaseModel):
    text: str


class SlowArgs(BaseModel):
    seconds: float = 30


def make_registry(notes: list[str], started: threading.Event) -> ToolRegistry:
    def echo(ctx: ToolContext, args: EchoArgs) -> dict[str, Any]:
        return {"success": True, "echo": args.text}

    def note(ctx: ToolContext, args: NoteArgs) -> dict[str, Any]:
        notes.append(args.text)
        return {"success": True, "count": len(notes)}

    def slow(ctx: ToolContext, args: SlowArgs) -> dict[str, Any]:
        started.set()
        if ctx.cancel.wait(args.seconds):
            return {"success": False, "error": "cancelled", "cancelled": True}
        return {"success": True}

    def boom(ctx: ToolContext, args: EchoArgs) -> dict[str, Any]:
        raise RuntimeError("kaboom")

    def stubborn(ctx: ToolContext, args: SlowArgs) -> dict[str, Any]:
        """A change that cannot be stopped once started (like a file write): it finishes."""
        started.set()
        ctx.cancel.wait(args.seconds)
        time.sleep(0.2)  # still busy a moment after the stop
        notes.append("stubborn")
        return {"success": True, "changed": True}

    return ToolRegistry(
        [
            Tool("echo", "Echo text back.", EchoArgs, Risk.READ, echo),
            Tool("note", "Remember a note.", NoteArgs, Risk.WRITE, note),
            Tool("zap", "Destroy a note.", NoteArgs, Risk.DESTRUCTIVE, note),
            Tool("slow", "Take a while.", SlowArgs, Risk.READ, slow),
            Tool("boom", "Always crashes.", EchoArgs, Risk.READ, boom),
            Tool("stubborn", "Change something.", SlowArgs, Risk.READ, stubborn),
        ]
    )


class Rig:
    def __init__(self, core: Core, log: EventLog, fake: Any, workspace: Path) -> None:
        self.core = core
        self.log = log
        self.fake = fake
        self.workspace = workspace
        self.notes: list[str] = []
        self.slow_started = threading.Event()

    def session(self, **kwargs: Any) -> str:
        return str(self.core.new_session(**kwargs)["id"])

    def send(self, text: str, session_id: str | None = None) -> tuple[str, str]:
        sid = session_id or self.session()
        turn = self.core.send_message(sid, text)["turn_id"]
        return sid, turn

    def finish(self, turn_id: str, timeout: float = 15.0) -> Any:
        return self.log.wait_for(
            lambda e: (
                getattr(e, "turn_id", None) == turn_id
                and getattr(e, "type", "") in ("turn_finished", "turn_failed")
            ),
            timeout,
        )


@pytest.fixture
def make_rig(tmp_path: Path, app_paths: AppPaths) -> Iterator[Callable[..., Rig]]:
    made: list[tuple[Core, EventLog, FakeServer]] = []

    def build(
        *,
        default_registry: bool = False,
        openai: bool = False,
        sqlite: bool = False,
        chats: Any = None,
        tools: list[Tool] | None = None,
        secrets: Any = None,
        fake_options: dict[str, Any] | None = None,
        **settings_fields: Any,
    ) -> Rig:
        """``openai``: a FakeOpenAI instead of a FakeOllama; ``sqlite``: the real chat store;
        ``chats``: a given ChatRepository; ``tools``: more tools besides the test tools;
        ``secrets``: a SecretStore factory (the keyring); ``fake_options``: the fake server's
        own options (``mistral_ids``, ``same_index``...)."""
        options = fake_options or {}
        fake: FakeServer = (FakeOpenAI(**options) if openai else FakeOllama(**options)).start()
        workspace = tmp_path / "work"
        workspace.mkdir(exist_ok=True)
        fields: dict[str, Any] = {
            "endpoint": fake.url,
            "default_model": "qwen3:8b",
            "allowed_dirs": [str(workspace)],
            "think": True,
        }
        if openai:
            fields.update(provider="openai", default_model="gpt-4o-mini")
        fields.update(settings_fields)
        settings = Settings(**fields)
        notes: list[str] = []
        started = threading.Event()
        registry = None if default_registry else make_registry(notes, started)
        for tool in tools or ():
            if registry is None:
                registry = ToolRegistry(builtin_tools())
            registry.register(tool)
        if sqlite:
            chats = open_chat_store(app_paths)[0]
        core = Core(
            settings=settings,
            paths=app_paths,
            chats=chats,
            persist_settings=False,
            tool_registry=registry,
            secrets=secrets,
        ).start()
        log = EventLog(core)
        made.append((core, log, fake))
        rig = Rig(core, log, fake, workspace)
        rig.notes = notes
        rig.slow_started = started
        return rig

    yield build
    for core, log, fake in made:
        log.close()
        core.stop()
        fake.stop()
