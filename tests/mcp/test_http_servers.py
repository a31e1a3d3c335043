"""Remote MCP servers by ``url``: the in-repo server as a real subprocess on 127.0.0.1 serving
Streamable HTTP and, separately, the older HTTP+SSE; a header secret from the keyring; an
approved call through the agent loop; ``metona-tray mcp list`` / ``mcp test``; servers that are
down, answer garbage or redirect elsewhere fail with a clear status, never hang, and nothing
but the configured URL is contacted."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.conftest import ROOT, wait_for
from tests.mcp.http_keyring import BACKEND, FileKeyring
from tray_app.store.secrets import SecretStore

TOKEN = "Bearer s3cr3t-token-42"
HOSTILE = "日本語 \u202eexe.txt 🌍 <b>x</b>"
SERVE_WAIT = 60.0  # a loaded CI machine imports the SDK and uvicorn slowly


class Served:
    def __init__(self, url: str, marks: Path) -> None:
        self.url = url
        self.marks = marks

    def requests(self) -> list[str]:
        log = self.marks / "requests"
        return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """Start ``tests/mcp/fake_http_server.py MODE`` and wait until it listens."""
    running: list[subprocess.Popen[bytes]] = []

    def start(mode: str, *extra: str) -> Served:
        marks = tmp_path / f"marks-{mode}-{len(running)}"
        marks.mkdir()
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.mcp.fake_http_server", mode, str(marks), *extra],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=(marks / "stderr").open("wb"),
        )
        running.append(proc)
        port = wait_for(
            lambda: (marks / "port").exists() and (marks / "port").read_text(),
            SERVE_WAIT,
            f"the {mode} server to listen",
        )
        path = {"http": "/mcp", "sse": "/sse"}.get(mode, "/mcp")
        return Served(f"http://127.0.0.1:{port}{path}", marks)

    yield start
    for proc in running:
        proc.terminate()
    for proc in running:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def keyring_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "keyring.json"
    monkeypatch.setenv("METONA_TEST_KEYRING", str(path))
    return path


def entry(served: Served, mode: str, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "url": served.url,
        "headers": {"Authorization": "keyring:远程-token", "X-Tenant": "t-1"},
        "timeout_s": 30,
        **extra,
    }
    if mode == "sse":
        found["type"] = "sse"
    return found


def status_of(rig: Rig, name: str) -> dict[str, Any]:
    return next((s for s in rig.core.mcp_status() if s["name"] == name), {})


@pytest.mark.parametrize("mode", ["http", "sse"])
def test_a_remote_server_lists_its_tools_and_an_approved_call_runs(
    make_rig: Any, serve: Callable[..., Served], keyring_file: Path, mode: str
) -> None:
    served = serve(mode)
    store = SecretStore(FileKeyring())
    store.set("mcp:远程-token", TOKEN)
    rig: Rig = make_rig(
        default_registry=True,
        secrets=lambda: store,
        mcp_servers={"远程 服务": entry(served, mode)},
    )
    wait_for(lambda: status_of(rig, "远程 服务").get("status") == "ready", 60, "the server ready")
    row = status_of(rig, "远程 服务")
    assert row["transport"] == mode and row["error"] is None
    assert {"echo", "add_note", "wipe"} <= {t["name"] for t in row["tools"]}

    rig.fake.script(text_turn("looking"))
    _, turn = rig.send("which tools?")
    rig.finish(turn)
    offered = [t["function"]["name"] for t in rig.fake.chat_requests[0]["tools"]]
    note = next(name for name in offered if name.endswith("__add_note"))

    rig.fake.script(tool_turn([(note, {"text": HOSTILE})]), text_turn("noted"))
    _, turn = rig.send("note it")
    asked = rig.log.wait_type("approval_needed")
    assert asked.name == note
    assert not (served.marks / "note").exists()  # nothing ran before the user said yes
    rig.core.decide(asked.call_id, True)
    rig.finish(turn)
    assert (served.marks / "note").read_text(encoding="utf-8") == HOSTILE
    answer = json.loads(rig.fake.chat_requests[-1]["messages"][-1]["content"])
    assert answer["success"] is True and answer["content"] == "noted"

    seen = served.requests()
    allowed = {"/mcp"} if mode == "http" else {"/sse", "/messages/"}
    assert seen and {line.split()[1] for line in seen} <= allowed
    assert all(f"auth={TOKEN} tenant=t-1" in line for line in seen)  # the keyring's secret


def free_port() -> int:
    """A port nothing listens on (bound, then closed: connecting is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_down_garbage_and_redirecting_servers_fail_clearly_and_contact_nothing_else(
    make_rig: Any, serve: Callable[..., Served], keyring_file: Path
) -> None:
    elsewhere = serve("http")  # a real server, never configured: must never be contacted
    junk = serve("garbage")
    moved = serve("redirect", "--to", elsewhere.url)
    store = SecretStore(FileKeyring())
    store.set("mcp:远程-token", TOKEN)
    servers = {
        "down": {"url": f"http://127.0.0.1:{free_port()}/mcp"},
        "junk": {"url": junk.url},
        "junk-sse": {"url": junk.url, "type": "sse"},
        "moved": entry(moved, "http"),
        "no-secret": {"url": junk.url, "headers": {"Authorization": "keyring:没有"}},
    }
    rig: Rig = make_rig(default_registry=True, secrets=lambda: store, mcp_servers=servers)

    def all_failed() -> dict[str, dict[str, Any]] | None:
        rows = {s["name"]: s for s in rig.core.mcp_status()}
        return rows if all(rows.get(n, {}).get("status") == "failed" for n in servers) else None

    rows = wait_for(all_failed, 90, "every server to fail")
    assert "ConnectError" in rows["down"]["error"]
    assert "text/html" in rows["junk"]["error"]
    assert "text/html" in rows["junk-sse"]["error"]
    assert "307" in rows["moved"]["error"] or "redirect" in rows["moved"]["error"].lower()
    assert "没有" in rows["no-secret"]["error"] and "keyring" in rows["no-secret"]["error"]
    assert all(TOKEN not in (row["error"] or "") for row in rows.values())
    assert all(row["tools"] == [] for row in rows.values())
    assert elsewhere.requests() == []  # the redirect was not followed
    assert moved.requests() and all(f"auth={TOKEN}" in line for line in moved.requests())


@pytest.fixture
def cli(metona_home: Path, tmp_path: Path, keyring_file: Path) -> Callable[..., Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update(
        METONA_HOME=str(metona_home),
        NO_COLOR="1",
        PYTHONPATH=str(ROOT),
        LANG="C.UTF-8",
        PYTHON_KEYRING_BACKEND=BACKEND,
        METONA_TEST_KEYRING=str(keyring_file),
    )
    env.pop("LC_ALL", None)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "tray_app", "mcp", *args],
            input="",
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=180,
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done

    return run


def test_mcp_list_and_test_reach_a_remote_server_with_a_keyring_header(
    cli: Callable[..., Any], metona_home: Path, serve: Callable[..., Served], keyring_file: Path
) -> None:
    served = serve("http")
    FileKeyring().set_password("metona-tray", "mcp:远程-token", TOKEN)
    settings = metona_home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    servers = {
        "远程": entry(served, "http"),
        "down": {"url": f"http://127.0.0.1:{free_port()}/mcp", "timeout_s": 5},
    }
    settings.write_text(json.dumps({"mcp_servers": servers}), encoding="utf-8")

    listed = cli("list", "--json")
    assert listed.returncode == 1, listed.stdout + listed.stderr  # one server is down
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    assert rows["远程"]["status"] == "ready" and rows["远程"]["transport"] == "http"
    assert "echo" in {t["name"] for t in rows["远程"]["tools"]}
    assert rows["down"]["status"] == "failed" and "ConnectError" in rows["down"]["error"]
    assert TOKEN not in listed.stdout

    tested = cli("test", "远程")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "远程: started, 11 tools listed, stopped." in tested.stdout
    failed = cli("test", "down")
    assert failed.returncode == 1 and "ConnectError" in failed.stdout
    assert {line.split()[1] for line in served.requests()} == {"/mcp"}
    assert all(f"auth={TOKEN}" in line for line in served.requests())
