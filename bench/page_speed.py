"""The page's speed measures, in real headless Chromium against a real Core.

* a 100k-token answer streamed through the fake Ollama, Core, the bridge and the page: frames
  longer than 50 ms and the longest task (PerformanceObserver "longtask");
* the same for a 100k-token answer that is one fenced code block (it grows as text while open);
* for both, the renderer processes' CPU time until the answer is drawn (less load-bound);
* opening a 500-message chat from the sidebar: time to the first paint of its messages.

Rows are merged into ``bench/results.json`` (other measures are kept), each with the load
average when it was taken. Numbers vary with the machine and its load; nothing fails on them.

    python -m bench.page_speed
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.web_harness import PageHarness
from tray_app.base.paths import AppPaths
from tray_app.core.service import Core
from tray_app.store.records import MessageRecord
from tray_app.store.settings import Settings

RESULTS = Path(__file__).with_name("results.json")

# PAGE_PROFILE=1: list the renderer's and the log's calls over 30 ms (what made a long task), and
# the frames over 50 ms with what filled them.
PROFILE = """async () => {
  window.__slow = [];
  const m = await import(new URL('js/markdown/mdstream.js', document.baseURI).href);
  const c = await import(new URL('js/chat/chatlog.js', document.baseURI).href);
  const wrap = (proto, name) => {
    const f = proto[name];
    proto[name] = function (...a) {
      const t = performance.now();
      const r = f.apply(this, a);
      const d = performance.now() - t;
      if (d > 30) window.__slow.push([name, d | 0, this.text ? this.text.length : 0, this.pos]);
      return r;
    };
  };
  for (const n of ['setText', 'renderWhole', 'verify', 'advance', 'drawTail'])
    wrap(m.MarkdownStream.prototype, n);
  for (const n of ['show', 'refreshText', 'messageFinished']) wrap(c.ChatLog.prototype, n);
}"""

# Counts frames over 50 ms (requestAnimationFrame gaps) and long tasks while a test runs.
WATCH = """
window.__perf = { frames: 0, slow: 0, longest: 0, last: 0, on: false };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (window.__perf.on)
    window.__perf.longest = Math.max(window.__perf.longest, e.duration);
}).observe({ type: 'longtask', buffered: false });
// Frames over 50 ms as the engine saw them (long-animation-frame timing): how much of each was
// script (and which), style and layout, or neither (the thread waited: load, raster, the GPU).
window.__frames50 = [];
if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (window.__perf.on && e.duration > 50) {
      window.__frames50.push({
      ms: Math.round(e.duration),
      styleAndLayout: Math.round(e.startTime + e.duration - e.styleAndLayoutStart),
      scripts: e.scripts.map((s) => `${s.invoker} ${Math.round(s.duration)} ms`
        + ` (forced style and layout ${Math.round(s.forcedStyleAndLayoutDuration)} ms)`),
      });
    }
  }).observe({ type: 'long-animation-frame', buffered: false });
}
(function tick(now) {
  const p = window.__perf;
  if (p.on && p.last && now - p.last > 50) p.slow += 1;
  if (p.on) p.frames += 1;
  p.last = now;
  requestAnimationFrame(tick);
})(0);
"""


def long_answer(tokens: int = 100_000) -> str:
    """~4 characters a token: paragraphs, a long list, a wide table, code, CJK and emoji."""
    parts: list[str] = []
    size = 0
    i = 0
    while size < tokens * 4:
        block = i % 5
        if block == 0:
            text = (
                f"Paragraph {i}: the answer goes on, 中文也在这里 😀, with `code` and **bold**.\n\n"
            )
        elif block == 1:
            text = "".join(f"{n}. step {n} of list {i}\n" for n in range(1, 40)) + "\n"
        elif block == 2:
            rows = "".join(f"| {r} | value {r} | note {i}-{r} |\n" for r in range(40))
            text = f"| # | value | note |\n|--:|:--|:-:|\n{rows}\n"
        elif block == 3:
            body = "".join(f"    x_{n} = compute({n})  # line {n}\n" for n in range(30))
            text = f"```python\ndef block_{i}():\n{body}```\n\n"
        else:
            text = f"> quote {i}\n> - inside\n\n### Heading {i}\n\n"
        parts.append(text)
        size += len(text)
        i += 1
    return "".join(parts)


def long_code(tokens: int = 100_000) -> str:
    """One fenced block of ~4 characters a token, with CJK, emoji and a bidi control."""
    line = "    value = compute(n)  # 中文 😀 \u202e\n"
    lines = "".join(f"x{n}{line}" for n in range(tokens * 4 // (len(line) + 6)))
    return f"The code:\n\n```python\n{lines}```\n\nDone.\n"


def closing_code(size: int = 45_000) -> str:
    """One fenced block under the 50,000-character highlighting limit: its close is highlighted."""
    line = "    value = compute(n, '中文 😀')  # </script> \u202e\n"
    lines = "".join(f"x{n}{line}" for n in range(size // (len(line) + 6)))
    return f"Closing code:\n\n```python\n{lines}```\n\nDone.\n"


def renderer_cpu(cdp: Any) -> float:
    """CPU seconds used so far by the browser's renderer processes (the page's main thread,
    its compositor and GC): what drawing costs, much less bent by the machine's load than
    wall times."""
    info = cdp.send("SystemInfo.getProcessInfo")["processInfo"]
    return float(sum(p["cpuTime"] for p in info if p["type"] == "renderer"))


def stream_answer(
    page: Any, fake: FakeOllama, text: str, prompt: str, cdp: Any = None, settled: str = "true"
) -> dict[str, Any]:
    """Streams `text` as the answer to `prompt`; the frames over 50 ms, the longest task and,
    given a browser CDP session, the renderer's CPU milliseconds until the answer is drawn."""
    fake.script(text_turn(text, chunk_chars=32))
    cpu_before = renderer_cpu(cdp) if cdp else 0.0
    page.evaluate(
        "window.__perf = { ...window.__perf, slow: 0, longest: 0, last: 0, on: true };"
        " window.__frames50 = []"
    )
    answers = page.evaluate("document.querySelectorAll('.msg.assistant').length")
    page.fill("#prompt", prompt)
    page.press("#prompt", "Enter")
    page.wait_for_function(
        """(n) => document.querySelectorAll('.msg.assistant:not(.streaming) .msg-foot').length >= n
             && !document.querySelector('.msg.assistant[aria-busy]') && """
        + settled,
        arg=answers + 1,
    )
    perf: dict[str, Any] = page.evaluate("window.__perf.on = false, window.__perf")
    if os.environ.get("PAGE_PROFILE"):
        print(f"  {prompt}: frames over 50 ms:", page.evaluate("window.__frames50"))
    if cdp:
        perf["cpu"] = (renderer_cpu(cdp) - cpu_before) * 1000
    return perf


def seed_chat(core: Core, messages: int = 500) -> str:
    chats = core._chats
    session = chats.create_session(model="qwen3:8b", workspace=None, title="Big chat")
    for i in range(messages // 2):
        chats.add_message(
            MessageRecord(session_id=session.id, role="user", content=f"Question {i}?")
        )
        chats.add_message(
            MessageRecord(
                session_id=session.id,
                role="assistant",
                model="qwen3:8b",
                content=f"**Answer {i}**\n\n- point one\n- two\n\n```js\nconst x = {i};\n```\n",
            )
        )
    return session.id


def measure(root: Path) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    rows: list[dict[str, Any]] = []
    with FakeOllama() as fake, sync_playwright() as playwright:
        paths = AppPaths.under(root / "page")
        paths.ensure()
        settings = Settings(
            endpoint=fake.url, default_model="qwen3:8b", allowed_dirs=[str(root)], language="en"
        )
        core = Core(settings=settings, paths=paths, persist_settings=False).start()
        harness = PageHarness(core).start()
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page(viewport={"width": 420, "height": 640})
            page.add_init_script(script=harness.init_script())
            page.add_init_script(script=WATCH)
            page.set_default_timeout(300_000)
            page.goto(harness.url)
            page.wait_for_selector('#app[data-checked="true"]')

            if os.environ.get("PAGE_PROFILE"):
                page.evaluate(PROFILE)
            cdp = browser.new_browser_cdp_session()
            perf = stream_answer(page, fake, long_answer(), "Write a very long answer", cdp)
            rows.append(
                row("page: 100k-token answer, frames over 50 ms", perf["slow"], "frames", 0)
            )
            rows.append(row("page: 100k-token answer, longest task", perf["longest"], "ms", 50))
            rows.append(row("page: 100k-token answer, renderer CPU", perf["cpu"], "ms", None))
            perf = stream_answer(page, fake, long_code(), "Now one long code block", cdp)
            rows.append(
                row("page: 100k-token code block, frames over 50 ms", perf["slow"], "frames", 0)
            )
            rows.append(row("page: 100k-token code block, longest task", perf["longest"], "ms", 50))
            rows.append(row("page: 100k-token code block, renderer CPU", perf["cpu"], "ms", None))
            rows.append(close_row(page, fake))
            if os.environ.get("PAGE_PROFILE"):
                print(page.evaluate("window.__slow"))

            seed_chat(core)
            page.reload()
            page.wait_for_selector('#app[data-checked="true"]')
            page.click("#btn-sidebar")
            first_paint = page.evaluate(
                """() => new Promise((done) => {
                  const button = [...document.querySelectorAll('#session-list .session-open')]
                    .find((b) => b.textContent.includes('Big chat'));
                  window.__perf.longest = 0; window.__perf.on = true;
                  const start = performance.now();
                  new MutationObserver((_, obs) => {
                    if (!document.querySelector('#messages .msg')) return;
                    obs.disconnect();
                    requestAnimationFrame(() => setTimeout(() => done(performance.now() - start)));
                  }).observe(document.querySelector('#messages'), { childList: true });
                  button.click();
                })"""
            )
            rows.append(row("page: open a 500-message chat, first paint", first_paint, "ms", 150))
        finally:
            browser.close()
            harness.stop()
            core.stop()
    return rows


def close_row(page: Any, fake: FakeOllama) -> dict[str, Any]:
    """The longest task while a 45 KB highlighted code block streams in and closes (highlighting
    it on the page's thread was one 40-80 ms task; web/js/markdown/hloffthread.js moves it to a
    worker)."""
    done = "!document.querySelector('[data-hl-pending]')"  # highlighted, off the main thread
    perf = stream_answer(page, fake, closing_code(), "A 45 KB code block", settled=done)
    return row("page: 45 KB code block closes, longest task", perf["longest"], "ms", 50)


def row(name: str, value: float, unit: str, target: float | None) -> dict[str, Any]:
    """One measure; `target` None: no target, the number is for comparing runs and versions."""
    load = round(os.getloadavg()[0], 1)
    goal = "no target" if target is None else f"target <= {target:g}"
    print(f"{name:<52} {value:10.1f} {unit:<6} ({goal}; load average {load})")
    return {
        "measure": name,
        "ours": round(value, 1),
        "unit": unit,
        "target": target,
        "met": None if target is None else value <= target,
        "load": load,
    }


def save(rows: list[dict[str, Any]]) -> None:
    """Merge into bench/results.json: these rows replace their own earlier values only."""
    data: dict[str, Any] = {}
    if RESULTS.exists():
        try:
            data = json.loads(RESULTS.read_text(encoding="utf-8"))
        except ValueError:
            data = {}
    names = {r["measure"] for r in rows}
    kept = [r for r in data.get("page", []) if r.get("measure") not in names]
    data["page"] = kept + rows
    RESULTS.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def bench_page() -> list[dict[str, Any]]:
    if not CHROMIUM.exists():
        print(f"page    skipped: {CHROMIUM} is missing")
        return []
    with tempfile.TemporaryDirectory(prefix="metona-bench-page-") as tmp:
        rows = measure(Path(os.path.realpath(tmp)))
    save(rows)
    return rows


if __name__ == "__main__":
    bench_page()
