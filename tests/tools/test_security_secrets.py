"""The file tools under attack (secrets, app folders, .git, odd names), through ``Toolbox.execute``.

Each test says what must not happen (a read, write, create or delete outside the allowed
folder; a secret in any output; a hang) and checks the disk afterwards, not only the message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.tools.attack_helpers import SECRET, assert_all_refused, every_call, leaked, ok, refused
from tray_app.base.paths import AppPaths
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.toolbox import Toolbox

# ---- over-blocking: ordinary names must work --------------------------------------------

ORDINARY = [
    "a..b.txt",
    "..hidden_dots",
    "日本語のメモ.txt",
    "café ☕.md",
    ".env.example",
    ".env.sample",
    ".env.template",
    "keyboard.ts",
    "forgot_password.html",
    "pem_utils.py",
    "monkey.keys",
    "credentials_test.py",
    "id_rsa_generator.md".replace("id_rsa_", "make_id_"),
    "~backup.txt",
    "$notes.txt",
    "with space.txt",
]


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_work_with_every_tool(box, layout, name):
    written = ok(box.execute("write_file", {"path": name, "content": "findme\n"}))
    assert Path(written["path"]) == layout.work / name
    assert ok(box.execute("read_file", {"path": name}))["content"] == "findme\n"
    listed = ok(box.execute("list_directory", {"path": ".", "include_hidden": True}))
    assert name in [e["name"] for e in listed["entries"]]
    found = ok(box.execute("search_files", {"path": name, "query": "findme"}))
    assert found["total_matches"] == 1
    made = ok(box.execute("create_directory", {"path": f"sub/{name}"}))
    assert Path(made["path"]).is_dir()
    ok(box.execute("delete_file", {"path": name}))
    assert not (layout.work / name).exists()


# ---- secrets never appear in any output -------------------------------------------------

SECRET_FILES = [
    ".env",
    ".env.local",
    "config/.env.production",
    "id_rsa",
    "deploy/id_ed25519",
    "server.pem",
    "tls.key",
    "credentials.json",
    ".git-credentials",
    ".netrc",
    "password.txt",
    "nested/passwords.csv",
]


def test_planted_secrets_appear_in_no_tool_output(box, layout, policy_for):
    for rel in SECRET_FILES:
        path = layout.work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"TOKEN={SECRET}\n")
    private = layout.work / "private"
    private.mkdir()
    (private / "notes.txt").write_text(SECRET)
    (layout.work / "innocent.txt").symlink_to(layout.work / ".env")
    (layout.work / "readme.md").write_text("nothing to see")
    guarded = Toolbox(policy_for(blocked_dirs=[private]), registry=ToolRegistry(FILE_TOOLS))
    calls: list[tuple[str, dict]] = []
    for rel in [*SECRET_FILES, "innocent.txt", "private/notes.txt", "config/../.env"]:
        calls += [(n, a) for n, a in every_call(rel) if n != "delete_file"]
        calls.append(("read_file", {"path": rel, "encoding": "base64"}))
    for query in (SECRET, "TOKEN", "*", "*.pem", ".env", "id_*"):
        for kind in ("filename", "content", "both"):
            calls.append(("search_files", {"path": ".", "query": query, "search_type": kind}))
    calls.append(("list_directory", {"path": ".", "recursive": True, "include_hidden": True}))
    outputs = [guarded.execute(name, args) for name, args in calls]
    outputs += [guarded.preview(name, args) for name, args in calls]
    assert not leaked(outputs)
    listed = {e["name"] for e in outputs[-len(calls) - 1]["entries"]}
    assert not any(Path(n).name in {".env", "id_rsa", "server.pem", "private"} for n in listed)
    for rel in SECRET_FILES:
        assert (layout.work / rel).read_text() == f"TOKEN={SECRET}\n"


def test_a_recursive_delete_of_a_folder_holding_a_secret_is_refused(box, layout):
    (layout.work / "proj").mkdir()
    (layout.work / "proj" / ".env").write_text(SECRET)
    message = refused(box.execute("delete_file", {"path": "proj", "recursive": True}))
    assert "secret" in message and SECRET not in message
    assert (layout.work / "proj" / ".env").read_text() == SECRET


# ---- the app's own folders and .git -----------------------------------------------------


def test_the_apps_folders_are_unreachable(policy_for, layout, metona_home):
    paths = AppPaths.under(metona_home)
    paths.ensure()
    paths.settings_file.write_text(json.dumps({"run_command_enabled": False, "k": SECRET}))
    roomy = Toolbox(
        policy_for(allowed_dirs=[metona_home.parent]), registry=ToolRegistry(FILE_TOOLS)
    )
    for folder in paths.protected_dirs():
        assert_all_refused(roomy, str(folder))
        assert_all_refused(roomy, str(folder / "settings.json"))
    search = roomy.execute("search_files", {"path": str(metona_home), "query": SECRET})
    listing = roomy.execute("list_directory", {"path": str(metona_home), "recursive": True})
    assert not leaked([search, listing])
    assert ok(listing)["entries"] == []
    refused(roomy.execute("delete_file", {"path": str(metona_home), "recursive": True}))
    assert SECRET in paths.settings_file.read_text()


def test_git_hooks_cannot_be_written(box, layout):
    hooks = layout.work / "repo" / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (hooks.parent / "config").write_text("[core]\n")
    for name, args in [
        ("write_file", {"path": "repo/.git/hooks/pre-commit", "content": "#!/bin/sh\nevil"}),
        ("write_file", {"path": "repo/.git/config", "content": "[core]\nfsmonitor=evil"}),
        ("create_directory", {"path": "repo/.git/hooks/x"}),
        ("delete_file", {"path": "repo/.git/config"}),
        ("delete_file", {"path": "repo/.git", "recursive": True}),
    ]:
        assert ".git folder" in refused(box.execute(name, args))
    assert list(hooks.iterdir()) == []
    assert (hooks.parent / "config").read_text() == "[core]\n"
    assert ok(box.execute("read_file", {"path": "repo/.git/config"}))["content"] == "[core]\n"


# ---- names that are not valid UTF-8 -----------------------------------------------------


def test_undecodable_names_never_break_the_json_sent_to_the_model(box, layout):
    if os.name != "posix":
        pytest.skip("POSIX file names are bytes")
    raw = os.fsencode(layout.work) + b"/caf\xe9 needle.txt"
    with open(raw, "wb") as handle:
        handle.write(b"needle inside\n")
    outputs = [
        box.execute("list_directory", {"path": "."}),
        box.execute("search_files", {"path": ".", "query": "needle"}),
        box.execute("read_file", {"path": "caf\udce9 needle.txt"}),
        box.preview("delete_file", {"path": "caf\udce9 needle.txt"}),
    ]
    for output in outputs:
        json.dumps(output, ensure_ascii=False).encode("utf-8")
    assert ok(outputs[0])["entries"][0]["name"] == "caf\ufffd needle.txt"
    assert ok(outputs[1])["total_matches"] == 1  # the name matched


def test_lone_surrogates_from_the_model_are_refused_cleanly(box, layout):
    assert "cannot be part of a file name" in refused(
        box.execute("write_file", {"path": "bad\ud800.txt", "content": "x"})
    )
    assert "not valid in UTF-8" in refused(
        box.execute("write_file", {"path": "ok.txt", "content": "bad\ud800"})
    )
    assert not (layout.work / "ok.txt").exists()
