"""A one-shot ``metona-tray chat --json`` loads only what a chat needs: the
real CLI in a subprocess against a fake Ollama on 127.0.0.1, with a hostile prompt, and its own
``-X importtime`` list of modules. Speed itself is measured by ``make bench``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn

PROMPT = "总结一下 🙂 \u202eevil.txt\u202c " + "長" * 5000
ANSWER = "好的 🙂 — \u202e done \u202c, 完成。"

#: Never needed for a chat without MCP servers, an API key or an export: the other commands'
#: parsers, httpx's own command-line client (click, rich, pygments: the MCP SDK installs them;
#: ``-X importtime`` lists the blocked ``httpx._main`` attempt itself, so it is not named), the MCP
#: SDK, the keyring, the OpenAI provider, export, the undo journal and the GUI.
NOT_FOR_A_CHAT = (
    "tray_app.cli.changes_cli",
    "tray_app.cli.mcp_cli",
    "tray_app.cli.mcp_import_cli",
    "tray_app.cli.mcp_serve",
    "click",
    "rich",
    "pygments",
    "mcp",
    "tray_app.mcp",  # the MCP client: config, manager, tools
    "keyring",
    "tray_app.providers.openai",
    "tray_app.store.export",
    "tray_app.tools.journal.journal",  # the undo journal: opened at the first tool call
    "tray_app.tools.journal.journal_index",
    "tray_app.desktop",
    "webview",
)


PACKAGES = tuple(f"{name}." for name in NOT_FOR_A_CHAT)


def imported(stderr: str) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def test_a_one_shot_chat_loads_nothing_it_does_not_use(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["METONA_HOME"] = str(tmp_path / "家 home 🙂")
    with FakeOllama(default_turn=text_turn(ANSWER)) as fake:
        flags = ["--json", "--endpoint", fake.url, "--model", "llama3.2"]
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "tray_app", "chat", *flags, PROMPT],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            timeout=120,
        )
        asked = fake.chat_requests
    assert done.returncode == 0, done.stderr[-3000:]
    assert asked[-1]["messages"][-1]["content"] == PROMPT
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    said = "".join(e["text"] for e in events if e["type"] == "content_delta")
    assert said == ANSWER
    names = imported(done.stderr)
    assert "tray_app.providers.ollama" in names  # the list is real
    loaded = sorted(n for n in names if n in NOT_FOR_A_CHAT or n.startswith(PACKAGES))
    assert loaded == []
    assert not (Path(env["METONA_HOME"]) / "data" / "undo" / "journal.sqlite3").exists()


#: Run in the child after the real command: which pydantic models had their schema built.
BUILT_PROBE = """
import json, sys
from tray_app.cli.cli import main
code = main(sys.argv[2:])
from tray_app.base import messages
from tray_app.providers import base
models = [getattr(messages, n) for n in dir(messages)] + [getattr(base, n) for n in dir(base)]
built = sorted(m.__name__ for m in models if getattr(m, "__pydantic_complete__", False))
lazy = getattr(messages, "_preview_adapter", None)  # a module-level adapter: built at import
adapter = lazy.cache_info().currsize if lazy is not None else 1
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"code": code, "built": built, "preview_adapter": adapter}, out)
"""

#: A chat in which the model calls no tool never validates these: their schemas wait for first use.
NOT_BUILT_FOR_A_CHAT = {
    *(f"{kind}Preview" for kind in ("NewFile", "Diff", "File", "Tree", "Path", "Move")),
    *(f"{kind}Preview" for kind in ("Command", "Mcp", "No", "Error", "Other")),
    "PersistenceRisk",
    "BudgetOver",
    "ToolCallRecord",
    "ProviderNotice",
    "PullProgress",
}


def test_a_one_shot_chat_builds_no_schema_it_does_not_use(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["METONA_HOME"] = str(tmp_path / "家 home 🙂")
    report = tmp_path / "built.json"
    with FakeOllama(default_turn=text_turn(ANSWER)) as fake:
        flags = ["--json", "--endpoint", fake.url, "--model", "llama3.2"]
        done = subprocess.run(
            [sys.executable, "-c", BUILT_PROBE, str(report), "chat", *flags, PROMPT],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    said = "".join(
        e["text"]
        for e in (json.loads(line) for line in done.stdout.splitlines() if line.strip())
        if e["type"] == "content_delta"
    )
    assert said == ANSWER
    facts = json.loads(report.read_text(encoding="utf-8"))
    assert facts["code"] == 0
    assert {"ChatMessage", "ChatRequest", "StreamDone"} <= set(facts["built"])  # the list is real
    assert sorted(NOT_BUILT_FOR_A_CHAT & set(facts["built"])) == []
    assert facts["preview_adapter"] == 0
