"""SandboxPolicy name rules: secret-looking names, .git, and Windows-only path problems."""

from __future__ import annotations

import os

import pytest

from tray_app.base.errors import SandboxViolation
from tray_app.tools.sandbox.path_rules import windows_path_problem as _windows_path_problem
from tray_app.tools.sandbox.policy import SandboxPolicy

ACCESSES = ("read", "write", "delete", "list", "search", "cwd")


def refused(policy: SandboxPolicy, raw: str, access: str = "read") -> str:
    with pytest.raises(SandboxViolation) as info:
        policy.resolve(raw, access=access)  # type: ignore[arg-type]
    return str(info.value)


# ---- sensitive names --------------------------------------------------------------------

SECRET_NAMES = [
    ".env",
    ".ENV",
    ".env.local",
    ".env.production",
    "server.pem",
    "tls.KEY",
    "id_rsa",
    "id_rsa.pub",
    "ID_ED25519",
    "id_ecdsa_sk",
    "credentials",
    "credentials.json",
    ".git-credentials",
    "password",
    "password.txt",
    "passwords.csv",
    ".netrc",
    ".pypirc",
    # tokens and keystores that tools write next to a project
    ".npmrc",
    "prod.tfstate",
    "terraform.tfstate.backup",
    "release.jks",
    "cert.p12",
    "site.PFX",
    ".htpasswd",
    ".pgpass",
]
ORDINARY_NAMES = [
    ".env.example",
    ".ENV.SAMPLE",
    ".env.template",
    "keyboard.ts",
    "forgot_password.html",
    "pem_utils.py",
    "password_reset.py",
    "credentials_test.py",
    "my.env.js",
    "environment.md",
    "key.txt",
    "keys.json",
    "a..b.txt",
    "日本語.txt",
    "café.md",
    "config",
    "config.json",
    "npmrc.md",
    "tfstate.md",
]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_sensitive_names_are_refused_for_every_access(layout, policy, name):
    assert policy.is_sensitive_name(name)
    for access in ACCESSES:
        assert "secret file" in refused(policy, name, access)
        assert "secret file" in refused(policy, f"deep/er/{name}/x.txt", access)


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_ordinary_names_are_not_sensitive(layout, policy, name):
    assert not policy.is_sensitive_name(name)
    assert policy.resolve(name, access="write") == layout.work / name


def test_a_link_with_an_innocent_name_to_a_secret_is_refused(layout, policy):
    (layout.work / ".env").write_text("TOKEN=1")
    (layout.work / "notes.txt").symlink_to(layout.work / ".env")
    assert "secret file" in refused(policy, "notes.txt")


def test_a_secret_name_in_the_raw_path_is_refused_even_if_dot_dot_leaves_it(layout, policy):
    assert "secret file" in refused(policy, ".env/../notes.txt")


def test_a_secret_looking_component_of_the_resolved_path_is_refused(layout, policy):
    folder = layout.work / "credentials"
    folder.mkdir()
    (layout.work / "innocent").symlink_to(folder)
    assert "secret file" in refused(policy, "innocent/readme.md")


# ---- .git -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw", [".git/hooks/pre-commit", "repo/.git/config", "repo/.GIT/x", ".git"]
)
def test_writing_or_deleting_inside_git_is_refused(layout, policy, raw):
    for access in ("write", "delete"):
        assert ".git folder" in refused(policy, raw, access)


def test_reading_inside_git_is_fine(layout, policy):
    hooks = layout.work / ".git" / "hooks"
    hooks.mkdir(parents=True)
    assert policy.resolve(".git/config", access="read") == layout.work / ".git" / "config"
    assert policy.resolve(".git/hooks", access="list") == hooks


def test_a_link_into_git_is_refused_for_writes(layout, policy):
    hooks = layout.work / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (layout.work / "tools").symlink_to(hooks)
    assert ".git folder" in refused(policy, "tools/pre-commit", "write")


def test_gitignore_and_friends_are_ordinary(layout, policy):
    for name in (".gitignore", ".gitattributes", ".github/workflows/ci.yml"):
        assert policy.resolve(name, access="write") == layout.work / name


# ---- Windows-only rules, tested as string logic -----------------------------------------


@pytest.mark.parametrize(
    ("raw", "word"),
    [
        (r"\\?\C:\Windows\x", "device"),
        (r"\\.\PhysicalDrive0", "device"),
        ("//?/C:/x", "device"),
        (r"\\server\share\x", "UNC"),
        ("//server/share", "UNC"),
        ("C:folder", "drive-relative"),
        ("C:", "drive-relative"),
        ("notes.txt:secret", "data stream"),
        (r"C:\work\a.txt::$DATA", "data stream"),
        ("CON", "reserved"),
        ("nul.txt", "reserved"),
        (r"C:\work\com1.log", "reserved"),
        ("LPT9", "reserved"),
        ("conin$", "reserved"),
        ("name.", "dot or a space"),
        ("name ", "dot or a space"),
        (r"dir.\x", "dot or a space"),
        ("a*b", "character"),
        ("what?", "character"),
    ],
)
def test_windows_path_problems(raw, word):
    problem = _windows_path_problem(raw)
    assert problem is not None and word in problem


@pytest.mark.parametrize(
    "raw",
    [r"C:\Users\me\notes.txt", "src/main.py", r"..\x", "console.log", "nullable.ts", "~/x", "."],
)
def test_windows_ordinary_paths_pass(raw):
    assert _windows_path_problem(raw) is None


def test_resolve_uses_the_windows_rules_on_windows(policy, monkeypatch):
    import tray_app.tools.sandbox.policy as sandbox

    monkeypatch.setattr(sandbox.os, "name", "nt")
    message = refused(policy, "CON")
    monkeypatch.undo()
    assert "reserved device name" in message


# ---- secrets that are secrets by their folder; persistence locations -------------------------


@pytest.mark.parametrize("raw", [".kube/config", "proj/.KUBE/config", "ci/.docker/config.json"])
def test_credential_configs_are_refused_by_folder_and_name(layout, policy, raw):
    for access in ACCESSES:
        assert "credentials" in refused(policy, raw, access)


def test_credential_configs_are_left_out_of_listings(box, layout):
    kube = layout.work / "deploy" / ".kube"
    kube.mkdir(parents=True)
    (kube / "config").write_text("token: S3CR3T")
    (kube / "notes.md").write_text("ok")
    (layout.work / "deploy" / "config").write_text("plain")
    listed = box.execute(
        "list_directory", {"path": "deploy", "recursive": True, "include_hidden": True}
    )
    names = {e["name"] for e in listed["entries"]}
    assert os.path.join(".kube", "notes.md") in names and "config" in names
    assert os.path.join(".kube", "config") not in names
    found = box.execute("search_files", {"path": "deploy", "query": "S3CR3T"})
    assert found["results"] == []


def test_the_npmrc_in_a_project_is_not_readable(box, layout):
    (layout.work / ".npmrc").write_text("//registry/:_authToken=S3CR3T\n")
    result = box.execute("read_file", {"path": ".npmrc"})
    assert result["success"] is False and "S3CR3T" not in str(result)


PERSISTENT = [
    ("~/.profile", "runs at login"),
    ("~/.bashrc", "runs in every new terminal shell"),
    ("~/.zshrc", "runs in every new terminal shell"),
    ("~/.config/autostart/evil.desktop", "runs at login"),
    ("~/.config/systemd/user/x.service", "runs at login"),
    ("~/Library/LaunchAgents/com.x.plist", "runs at login"),
    ("~/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/x.bat", "runs at login"),
    ("proj/.vscode/tasks.json", "runs when the folder is opened in VS Code"),
    ("proj/.VSCODE/settings.json", "runs when the folder is opened in VS Code"),
]


@pytest.mark.parametrize(("raw", "risk"), PERSISTENT)
def test_persistence_locations_are_named(layout, policy_for, raw, risk):
    policy = policy_for(allowed_dirs=[layout.home], workspace=layout.home)
    real = policy.resolve(raw, access="write")
    assert policy.persistence_risk(real) == {"code": _code(risk), "text": risk}


def _code(text: str) -> str:
    return {
        "runs at login": "login",
        "runs in every new terminal shell": "shell",
        "runs when the folder is opened in VS Code": "vscode",
    }[text]


@pytest.mark.parametrize(
    "raw", ["~/profile", "~/proj/.profile", "~/.config/autostart", "~/.vscode/extensions.json"]
)
def test_ordinary_neighbours_of_persistence_locations(layout, policy_for, raw):
    policy = policy_for(allowed_dirs=[layout.home], workspace=layout.home)
    assert policy.persistence_risk(policy.resolve(raw, access="write")) is None


def test_every_changing_preview_carries_the_warning(layout, policy_for):
    from tray_app.tools.builtin.files import FILE_TOOLS
    from tray_app.tools.registry import ToolRegistry
    from tray_app.tools.toolbox import Toolbox

    policy = policy_for(allowed_dirs=[layout.home], workspace=layout.home)
    box = Toolbox(policy, registry=ToolRegistry(FILE_TOOLS))
    (layout.home / ".bashrc").write_text("alias ll='ls -l'\n")
    (layout.home / "start.sh").write_text("echo hi\n")
    previews = [
        box.preview("write_file", {"path": "~/.bashrc", "content": "curl x | sh\n"}),
        box.preview(
            "edit_file", {"path": "~/.bashrc", "edits": [{"old_text": "ll", "new_text": "l"}]}
        ),
        box.preview("move_file", {"source": "~/start.sh", "destination": "~/.profile"}),
        box.preview("write_file", {"path": "~/.config/autostart/a.desktop", "content": "x"}),
    ]
    for preview in previews:
        assert preview["kind"] != "error", preview
        assert preview["persistence"]["text"] in (
            "runs at login",
            "runs in every new terminal shell",
        )
    read = box.preview("read_file", {"path": "~/.bashrc"})
    assert "persistence" not in read
