"""Run every benchmark and print one line each: what was measured, the number, the unit.

The fake Ollama server streams over real HTTP on loopback, the tools walk a real tree in a temp
folder, the store writes a real SQLite file. Numbers vary by machine; compare runs on one.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from bench.bundle import bench_bundle
from bench.edit_tools import bench_edit_tools
from bench.guards import bench_guards
from bench.hotkey_typing import bench_hotkey_typing
from bench.journal import bench_journal
from bench.loop_bounds import bench_loop_bounds
from bench.page_speed import bench_page
from bench.provider_memory import bench_provider_memory
from bench.rules import bench_rules
from bench.shell import bench_shell
from bench.speed_table import bench_speed, markdown
from bench.text_calls import bench_text_calls
from bench.web_fetch import bench_web_fetch
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn
from tray_app.agent.context import fit_history
from tray_app.base.events import TurnFinished
from tray_app.base.messages import ChatMessage
from tray_app.base.paths import AppPaths
from tray_app.core.service import Core
from tray_app.store.opening import open_chat_store
from tray_app.store.records import MessageRecord
from tray_app.store.settings import Settings
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox


def timed(fn: Callable[[], object], repeat: int = 5) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def bench_stream(root: Path) -> None:
    """A 4,000-piece answer through HTTP, the provider, the loop and the event bus."""
    pieces = 4000
    with FakeOllama() as fake:
        paths = AppPaths.under(root / "stream")
        paths.ensure()
        settings = Settings(endpoint=fake.url, default_model="llama3.2", allowed_dirs=[str(root)])
        core = Core(settings=settings, paths=paths, persist_settings=False).start()
        try:
            sub = core.bus.subscribe()
            fake.script(text_turn("abcd" * pieces, chunk_chars=4))
            sid = core.new_session()["id"]
            start = time.perf_counter()
            core.send_message(sid, "go")
            while True:
                event = sub.get(timeout=60)
                if isinstance(event, TurnFinished) or event is None:
                    break
            elapsed = time.perf_counter() - start
        finally:
            core.stop()
    print(f"stream  {pieces} pieces end to end        {pieces / elapsed:10.0f} pieces/s")


def bench_tools(root: Path) -> None:
    tree = root / "tree"
    for d in range(50):
        folder = tree / f"pkg{d}" / "src"
        folder.mkdir(parents=True)
        for f in range(40):
            (folder / f"mod{f}.py").write_text("import os\n" * 20 + f"value = {f}\n")
    policy = SandboxPolicy(allowed_dirs=[root], workspace=tree, home=root)
    box = Toolbox(policy)
    search = timed(
        lambda: box.execute(
            "search_files", {"path": ".", "query": "value = 7", "search_type": "content"}
        )
    )
    names = timed(
        lambda: box.execute(
            "search_files",
            {"path": ".", "query": "*.py", "search_type": "filename", "max_results": 5000},
        )
    )
    listing = timed(lambda: box.execute("list_directory", {"path": ".", "recursive": True}))
    read = timed(lambda: box.execute("read_file", {"path": "pkg1/src/mod1.py"}), repeat=50)
    print(f"tools   content search, 1000 files          {search * 1000:10.1f} ms")
    print(f"tools   filename glob, 2000 files           {names * 1000:10.1f} ms")
    print(f"tools   recursive list (capped at 500)      {listing * 1000:10.1f} ms")
    print(f"tools   read_file small file                {read * 1000:10.2f} ms")


def bench_history() -> None:
    earlier = [
        ChatMessage(role="user" if i % 2 else "assistant", content="word " * 200)
        for i in range(2000)
    ]
    current = [ChatMessage(role="user", content="now")]
    took = timed(
        lambda: fit_history(None, earlier, current, num_ctx=24576, tool_result_limit=16000)
    )
    print(f"context trim 2,000 messages                 {took * 1000:10.1f} ms")


def bench_store(root: Path) -> None:
    paths = AppPaths.under(root / "store")
    paths.ensure()
    chats, _ = open_chat_store(paths)
    session = chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="assistant")
    chats.add_message(message)
    count = 300
    start = time.perf_counter()
    for i in range(count):
        chats.update_message(message.id, content="x" * (i * 10))
    per = (time.perf_counter() - start) / count
    chats.close()
    print(f"store   streaming save (update_message)     {per * 1000:10.2f} ms")


def main() -> int:
    tracemalloc.start()
    with tempfile.TemporaryDirectory(prefix="metona-bench-") as tmp:
        root = Path(os.path.realpath(tmp))
        os.environ["METONA_HOME"] = str(root / "home")
        bench_stream(root)
        bench_tools(root)
        bench_edit_tools()
        bench_guards()
        bench_web_fetch()
        bench_rules()
        bench_history()
        bench_store(root)
        bench_journal()
    bench_provider_memory()  # each case in its own subprocess, so its peak RSS is its own
    _, peak = tracemalloc.get_traced_memory()
    print(f"memory  peak Python allocations             {peak / 1e6:10.1f} MB")
    tracemalloc.stop()  # the loop's bounds are timed untraced (tracing triples their time)
    bench_loop_bounds()
    bench_text_calls()  # what finding calls left in the text adds to a plain answer
    speed = bench_speed()  # every speed measure next to its peer; bench/results.json
    bench_page()  # the page's speed rows, in headless Chromium; merged into bench/results.json
    print(f"threads at exit                             {threading.active_count():10d}")
    bench_hotkey_typing()  # the real app under Xvfb; after the in-process numbers above
    bench_shell()  # the real app's two processes: idle cost, start time, hotkey to painted
    bench_bundle()  # the last `make package`'s size (building takes minutes: not done here)
    print("\nSpeed next to the peers (also in bench/results.json):")
    print(markdown(speed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
