"""Peak memory of a provider against hostile servers, each case in a fresh subprocess.

The parent runs the fake servers (over real HTTP on loopback); the child only imports the
provider, runs one case and reports its own peak RSS (``VmHWM``) before and after, and the
CPU time the case took. Cases: a 300 MB error page, a 50 MB line without a newline, and an
answer that never ends, read for a few seconds.

    python -m bench.provider_memory            # every case, both providers
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

MB = 1024 * 1024
CASES = ("error_300mb", "line_50mb", "endless")
KINDS = ("ollama", "openai")
ENDLESS_SECONDS = 5.0
ROOT = Path(__file__).resolve().parents[1]


def _peak_mb() -> float:
    """Peak RSS of this process. ``VmHWM`` where there is /proc: ``ru_maxrss`` survives exec on
    Linux, so a child would report the parent's peak as its own."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


async def _child(kind: str, case: str, url: str, seconds: float) -> dict[str, object]:
    from tray_app.base.errors import ProviderError
    from tray_app.base.messages import ChatMessage
    from tray_app.providers.base import ChatRequest, Provider, StreamDelta
    from tray_app.providers.ollama import OllamaProvider
    from tray_app.providers.openai import OpenAIProvider

    provider: Provider = OllamaProvider(url) if kind == "ollama" else OpenAIProvider(url)
    chat = ChatRequest(model="qwen3:8b", messages=[ChatMessage(role="user", content="go")])
    baseline = _peak_mb()
    cpu = time.process_time()
    deltas = 0
    outcome = "complete"
    deadline = time.monotonic() + seconds
    try:
        stream = provider.chat(chat)
        async for item in stream:
            if isinstance(item, StreamDelta):
                deltas += 1
            if case == "endless" and time.monotonic() >= deadline:
                outcome = "stopped by the consumer"
                break
    except ProviderError as exc:
        outcome = type(exc).__name__
    finally:
        await provider.aclose()
    return {
        "baseline_mb": baseline,
        "peak_mb": _peak_mb(),
        "cpu_s": time.process_time() - cpu,
        "deltas": deltas,
        "outcome": outcome,
    }


def run_case(kind: str, case: str, seconds: float = ENDLESS_SECONDS) -> dict[str, object]:
    """Serve ``case`` from a fake server here and measure a client in a subprocess."""
    from tests.fakes.ollama_server import FakeOllama
    from tests.fakes.openai_server import FakeOpenAI
    from tests.fakes.turns import endless_turn, huge_error_turn, long_line_turn

    turn = {
        "error_300mb": lambda: huge_error_turn(300 * MB),
        "line_50mb": lambda: long_line_turn("start", 50 * MB),
        "endless": lambda: endless_turn("la "),
    }[case]()
    with FakeOllama() if kind == "ollama" else FakeOpenAI() as fake:
        fake.script(turn)
        out = subprocess.run(
            [sys.executable, "-m", "bench.provider_memory", kind, case, fake.url, str(seconds)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    if out.returncode != 0:
        raise RuntimeError(f"{kind} {case}: the measuring child failed:\n{out.stderr}")
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def bench_line_splitting() -> None:
    """CPU for one line just under the limit arriving in 4 KB reads (was quadratic: each read
    re-scanned the whole buffer)."""
    from tray_app.providers._lines import MAX_LINE_BYTES, LineSplitter

    piece = b"x" * 4096
    reads = (MAX_LINE_BYTES - 1) // len(piece)
    splitter = LineSplitter()
    start = time.process_time()
    for _ in range(reads):
        splitter.feed(piece)
    (line,) = splitter.feed(b"\n")
    took = time.process_time() - start
    print(f"stream  {len(line) / MB:.1f} MB line in {reads} reads of 4 KB   {took:10.3f} s CPU")


def bench_provider_memory() -> None:
    bench_line_splitting()
    for case in CASES:
        for kind in KINDS:
            r = run_case(kind, case)
            label = {
                "error_300mb": "300 MB error body",
                "line_50mb": "50 MB line",
                "endless": f"endless stream {ENDLESS_SECONDS:g} s",
            }[case]
            extra = f"{r['deltas']} deltas, " if case == "endless" else ""
            print(
                f"memory  {kind:6} {label:22} peak RSS {r['peak_mb']:7.1f} MB "
                f"(at start {r['baseline_mb']:5.1f}; {extra}{r['cpu_s']:.2f} s CPU; {r['outcome']})"
            )


if __name__ == "__main__":
    if len(sys.argv) == 5:
        kind, case, url, seconds = sys.argv[1:]
        print(json.dumps(asyncio.run(_child(kind, case, url, float(seconds)))))
    else:
        bench_provider_memory()
