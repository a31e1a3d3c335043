"""The client measures, next to the official clients (``bench.peers_env``).

* streaming: our Ollama and OpenAI-compatible providers vs the ``ollama`` and ``openai``
  packages, each reading the same 20,000-chunk answer from the fake server over loopback, in
  its own process (warmed by one request, then one timed);
* one-shot: the whole ``metona-tray chat --json hi`` process vs a script doing the same with the
  ``ollama`` package (start, ask, print every part, exit).

Rows as in ``bench.speed_peers``: measure, ours, peer, ratio, target.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.peers_env import ROOT, peer_python
from bench.speed_peers import _pairs, _row
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import text_turn

CHUNKS = 20_000

_OURS = """
import asyncio, sys, time
from tray_app.base.messages import ChatMessage
from tray_app.providers.base import ChatRequest, StreamDelta
kind, url, model = sys.argv[1:4]
if kind == "ollama":
    from tray_app.providers.ollama import OllamaProvider as Provider
else:
    from tray_app.providers.openai import OpenAIProvider as Provider
async def main():
    provider = Provider(url)
    request = ChatRequest(model=model, messages=[ChatMessage(role="user", content="go")])
    for timed in (False, True):
        start, n = time.perf_counter(), 0
        async for item in provider.chat(request):
            n += isinstance(item, StreamDelta)
    print(time.perf_counter() - start, n)
    await provider.aclose()
asyncio.run(main())
"""

_PEER = """
import asyncio, sys, time
kind, url, model = sys.argv[1:4]
async def main():
    if kind == "ollama":
        import ollama
        client = ollama.AsyncClient(host=url)
        ask = lambda: client.chat(model=model, messages=[{"role": "user", "content": "go"}],
                                  stream=True)
    else:
        import openai
        client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="bench")
        ask = lambda: client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "go"}], stream=True)
    for timed in (False, True):
        start, n = time.perf_counter(), 0
        async for part in await ask():
            n += 1
    print(time.perf_counter() - start, n)
asyncio.run(main())
"""

_ONE_SHOT_PEER = """
import json, sys
import ollama
url, model = sys.argv[1:3]
client = ollama.Client(host=url)
for part in client.chat(model=model, messages=[{"role": "user", "content": "hi"}], stream=True):
    print(json.dumps(part.model_dump(mode="json"), ensure_ascii=False))
"""


def _child(python: Path | str, code: str, *args: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [str(python), "-c", code, *args], capture_output=True, text=True, env=env, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench child failed:\n{done.stderr[-2000:]}")
    took, count = done.stdout.split()
    if int(count) < CHUNKS:
        raise RuntimeError(f"bench child read {count} of {CHUNKS} chunks")
    return float(took)


def _streaming(peer: Path) -> list[dict[str, Any]]:
    rows = []
    answer = text_turn("abcd" * CHUNKS, chunk_chars=4)
    for kind, server, model in (
        ("ollama", FakeOllama, "llama3.2"),
        ("openai", FakeOpenAI, "gpt-4o-mini"),
    ):
        with server(default_turn=answer) as fake:
            samples: list[tuple[float, float]] = []
            for _ in range(5):  # each child times its own stream; alternate to share the load
                ours = _child(sys.executable, _OURS, kind, fake.url, model)
                theirs = _child(peer, _PEER, kind, fake.url, model)
                samples.append((ours, theirs))
        samples.sort(key=lambda pair: pair[0] / pair[1])
        a, b = samples[len(samples) // 2]
        name = "ollama client" if kind == "ollama" else "openai SDK"
        label = f"{kind} provider, {CHUNKS:,}-chunk stream"
        rows.append(_row(label, a, b, name, 1.2, a / b))
    return rows


def _cpu_of(command: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of a whole child process."""
    child = subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise RuntimeError(f"{command[:4]} failed: {status}")
    return float(usage.ru_utime + usage.ru_stime)


def _one_shot(peer: Path, root: Path) -> list[dict[str, Any]]:
    home = root / "one-shot-home"
    with FakeOllama(default_turn=text_turn("Hello! How can I help you today?")) as fake:
        env = {**os.environ, "METONA_HOME": str(home)}
        ours = [sys.executable, "-m", "tray_app", "chat", "--json", "--endpoint", fake.url]
        ours += ["--model", "llama3.2", "hi"]
        theirs = [str(peer), "-c", _ONE_SHOT_PEER, fake.url, "llama3.2"]
        wall = _pairs(
            lambda: subprocess.run(ours, env=env, capture_output=True, check=True, cwd=ROOT),
            lambda: subprocess.run(theirs, env=env, capture_output=True, check=True),
            repeat=7,
        )
        cpu = [(_cpu_of(ours, env), _cpu_of(theirs, env)) for _ in range(7)]
    mine = statistics.median(a for a, _ in cpu)
    other = statistics.median(b for _, b in cpu)
    ratio = statistics.median(a / b for a, b in cpu)
    label = 'one-shot `chat --json "hi"`, whole process'
    return [
        _row(f"{label} (wall)", wall[0], wall[1], "ollama script", 1.3, wall[2]),
        _row(f"{label} (CPU)", mine, other, "ollama script", 1.3, ratio),
    ]


def bench_clients(root: Path) -> list[dict[str, Any]]:
    peer = peer_python()
    if peer is None:
        print("clients: the official clients could not be installed; not compared")
        return []
    return [*_streaming(peer), *_one_shot(peer, root)]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="metona-bench-clients-") as tmp:
        bench_clients(Path(tmp))
