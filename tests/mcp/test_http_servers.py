"""Remote MCP servers by ``url``: the in-repo server as a real subprocess on 127.0.0.1 serving
Streamable HTTP and, separately, the older HTTP+SSE; a header secret from the keyring; an
approved call through the agent loop; ``metona-tray mcp list`` / ``mcp test``; servers that are
down, answer garbage or redirect elsewhere fail with a clear status, never hang, and nothing
but the configured URL is contacted."""

from __future__ import annotations

import itertools
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.conftest import ROOT, fake_entry
from tests.mcp.http_keyring import BACKEND, FileKeyring
from tests.mcp.http_serve import Served, serve
from tests.support.waiting import eventually
from tray_app.base.errors import InvalidRequest
from tray_app.store.secrets import SecretStore

TOKEN = "Bearer s3cr3t-token-42"
HOSTILE = "日本語 \u202eexe.txt 🌍 <b>x</b>"
__all__ = ["serve"]  # the fixture, imported


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
    eventually(lambda: status_of(rig, "远程 服务").get("status") == "ready", 60, "the server ready")
    row = status_of(rig, "远程 服务")
    assert row["transport"] == mode and row["error"] is None
    # The page follows these events: the last says what mcp_status says, and none repeats.
    pushed = eventually(
        lambda: (
            [e.servers for e in rig.log.of_type("mcp_status")][-1:] == [rig.core.mcp_status()]
            and [e.servers for e in rig.log.of_type("mcp_status")]
        ),
        30,
        "the last mcp_status event to match",
    )
    assert all(a != b for a, b in itertools.pairwise(pushed))
    # a start is "starting" then "ready", but a quick one is a single burst: one event
    assert pushed[0][0]["status"] in ("starting", "ready")
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
    big = serve("huge")
    moved = serve("redirect", "--to", elsewhere.url)
    store = SecretStore(FileKeyring())
    store.set("mcp:远程-token", TOKEN)
    servers = {
        "down": {"url": f"http://127.0.0.1:{free_port()}/mcp"},
        "junk": {"url": junk.url},
        "junk-sse": {"url": junk.url, "type": "sse"},
        "moved": entry(moved, "http"),
        "no-secret": {"url": junk.url, "headers": {"Authorization": "keyring:没有"}},
        "huge": {"url": big.url},
    }
    rig: Rig = make_rig(default_registry=True, secrets=lambda: store, mcp_servers=servers)

    def all_failed() -> dict[str, dict[str, Any]] | None:
        rows = {s["name"]: s for s in rig.core.mcp_status()}
        return rows if all(rows.get(n, {}).get("status") == "failed" for n in servers) else None

    rows = eventually(all_failed, 90, "every server to fail")
    assert "ConnectError" in rows["down"]["error"]
    assert "text/html" in rows["junk"]["error"]
    assert "text/html" in rows["junk-sse"]["error"]
    assert "307" in rows["moved"]["error"] or "redirect" in rows["moved"]["error"].lower()
    assert "没有" in rows["no-secret"]["error"] and "keyring" in rows["no-secret"]["error"]
    assert "larger than 64 MB" in rows["huge"]["error"]  # read no further than the bound
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
        "down": {"url": f"http://127.0.0.1:{free_port()}/mcp", "timeout_s": 30},
        "junk": {"url": serve("garbage").url},
    }
    settings.write_text(json.dumps({"mcp_servers": servers}), encoding="utf-8")

    listed = cli("list", "--json")
    assert listed.returncode == 1, listed.stdout + listed.stderr  # one server is down
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    assert rows["远程"]["status"] == "ready" and rows["远程"]["transport"] == "http"
    assert "echo" in {t["name"] for t in rows["远程"]["tools"]}
    assert rows["down"]["status"] == "failed" and "ConnectError" in rows["down"]["error"]
    assert rows["down"]["restarts"] == 0  # failed at once: list did not wait through retries
    assert TOKEN not in listed.stdout

    tested = cli("test", "远程")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    count = len(rows["远程"]["tools"])
    assert f"远程: started, {count} tools listed, stopped." in tested.stdout
    failed = cli("test", "down")
    assert failed.returncode == 1, failed.stdout
    assert "down: did not start: nothing answers at http://127.0.0.1:" in failed.stdout
    assert "Unexpected" not in failed.stderr + listed.stderr  # no SDK log lines on the terminal
    junk = cli("test", "junk")
    assert junk.returncode == 1 and "text/html" in junk.stdout
    assert junk.stderr == ""
    assert {line.split()[1] for line in served.requests()} == {"/mcp"}
    assert all(f"auth={TOKEN}" in line for line in served.requests())


def test_a_secret_set_for_a_server_restarts_it_and_is_never_echoed(
    make_rig: Any, serve: Callable[..., Served], keyring_file: Path
) -> None:
    served = serve("http")
    store = SecretStore(FileKeyring())
    rig: Rig = make_rig(
        default_registry=True, secrets=lambda: store, mcp_servers={"远程": entry(served, "http")}
    )
    row = eventually(
        lambda: status_of(rig, "远程").get("status") == "failed" and status_of(rig, "远程"),
        60,
        "failed",
    )
    assert "远程-token" in row["error"]  # the reference is not in the keyring yet

    saved = rig.core.set_mcp_secret("远程-token", TOKEN)
    assert saved == {
        "reference": "keyring:远程-token",
        "stored_in_keyring": True,
        "warning": None,
        "problem": None,
    }
    assert TOKEN not in json.dumps(saved)
    assert FileKeyring().get_password("metona-tray", "mcp:远程-token") == TOKEN
    # The server was waiting to retry (backoff): it starts again at once with the secret.
    eventually(lambda: status_of(rig, "远程").get("status") == "ready", 60, "ready")
    assert any(f"auth={TOKEN}" in line for line in served.requests())

    rig.core.set_mcp_secret("远程-token", "Bearer second")  # a new value: the server restarts
    eventually(lambda: any("auth=Bearer second" in line for line in served.requests()), 60, "again")

    for name, secret in [
        ("a/b", "x"),
        ("\u202eevil", "x"),
        ("ok", "line\nX-Evil: 1"),
        ("ok", "x" * 9000),
    ]:
        with pytest.raises(InvalidRequest):
            rig.core.set_mcp_secret(name, secret)
    rig.core.set_mcp_secret("emoji 名", "密钥 🔑 \u202e")  # an env value may be any text
    assert FileKeyring().get_password("metona-tray", "mcp:emoji 名") == "密钥 🔑 \u202e"
    rig.core.set_mcp_secret("emoji 名", None)
    assert FileKeyring().get_password("metona-tray", "mcp:emoji 名") is None
    assert all(TOKEN not in json.dumps(s) for s in rig.core.mcp_status())
    assert TOKEN not in json.dumps(rig.core.get_settings(), ensure_ascii=False)


def test_a_crashed_server_says_it_closed_the_connection_and_the_page_hears_it(
    make_rig: Any, tmp_path: Path
) -> None:
    """Before, the SDK's teardown error ("exit cancel scope in a different task") was the last
    error Settings showed for every server that ended; now it says what happened."""
    marks = tmp_path / "marks"
    marks.mkdir()
    rig: Rig = make_rig(default_registry=True, mcp_servers={"本地": fake_entry(marks)})
    eventually(lambda: status_of(rig, "本地").get("status") == "ready", 60, "ready")
    manager = rig.core._mcp.manager
    assert manager is not None
    with pytest.raises(Exception):  # noqa: B017 - the SDK's "connection closed" error
        manager.call("本地", "crash", {}, cancel=threading.Event())

    def first_failure() -> str | None:
        for event in rig.log.of_type("mcp_status"):
            row = next((s for s in event.servers if s["name"] == "本地"), {})
            if row.get("status") == "failed":
                return str(row["error"])
        return None

    error = eventually(first_failure, 60, "an mcp_status event saying it failed")
    assert error == "the server closed the connection"
