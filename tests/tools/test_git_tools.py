"""The git tools on real repositories: what they answer, and that nothing a repository holds
(hooks, config naming programs, a .git file pointing elsewhere) runs or reaches outside."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.tools.attack_helpers import ok
from tray_app.tools.builtin.git_tools import GIT_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Setup",
    "GIT_AUTHOR_EMAIL": "setup@example.invalid",
    "GIT_COMMITTER_NAME": "Setup",
    "GIT_COMMITTER_EMAIL": "setup@example.invalid",
    "PATH": os.environ["PATH"],
    "HOME": os.environ.get("HOME", "/"),
}


def git(repo: Path, *args: str) -> str:
    """The test's own git, to set a repository up and look at it afterwards."""
    done = subprocess.run(
        ["git", *args], cwd=repo, env=ENV, capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "a.txt").write_text("one\n")
    git(folder, "add", "a.txt")
    git(folder, "commit", "-q", "-m", "first")
    return folder


@pytest.fixture
def gbox(policy: SandboxPolicy, journal) -> Toolbox:
    return Toolbox(policy, registry=ToolRegistry(GIT_TOOLS), journal=journal)  # type: ignore[arg-type]


@pytest.fixture
def repo(layout) -> Path:
    return make_repo(layout.work / "proj")


def hostile(repo: Path, marker: Path) -> None:
    """Every way a repository's own files could make git run a program, each writing
    ``marker`` if it ran."""
    script = repo.parent / "evil.sh"
    script.write_text(f"#!/bin/sh\necho ran >> '{marker}'\ncat\n")
    script.chmod(0o755)
    hooks = repo / ".git" / "hooks"
    for name in (
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "post-index-change",
    ):
        (hooks / name).write_text(f"#!/bin/sh\necho {name} >> '{marker}'\n")
        (hooks / name).chmod(0o755)
    for key, value in (
        ("core.fsmonitor", str(script)),
        ("diff.external", str(script)),
        ("diff.evil.textconv", str(script)),
        ("diff.evil.command", str(script)),
        ("filter.evil.clean", str(script)),
        ("filter.evil.smudge", str(script)),
        ("filter.evil.required", "true"),
        ("core.pager", str(script)),
        ("core.sshCommand", str(script)),
        ("gpg.program", str(script)),
        ("commit.gpgSign", "true"),
        ("core.editor", str(script)),
    ):
        git(repo, "config", key, value)
    (repo / ".gitattributes").write_text("* diff=evil filter=evil\n")


def test_status_diff_log_on_a_real_repository(gbox, repo):
    (repo / "a.txt").write_text("one\ntwo\n")
    (repo / "新 文件 📄.txt").write_text("x\n")
    (repo / "-rf").write_text("dash\n")
    status = ok(gbox.execute("git_status", {"path": "proj"}))
    assert status["branch"] == "main" and status["clean"] is False
    by_path = {f["path"]: f for f in status["files"]}
    assert by_path["a.txt"]["unstaged"] == "M"
    assert by_path["新 文件 📄.txt"]["staged"] == "?" and "-rf" in by_path
    diff = ok(gbox.execute("git_diff", {"path": "proj", "files": ["a.txt"]}))
    assert "+two" in diff["diff"] and diff["files"] == [{"added": 1, "deleted": 0, "path": "a.txt"}]
    assert ok(gbox.execute("git_diff", {"path": "proj", "staged": True}))["diff"] == ""
    log = ok(gbox.execute("git_log", {"path": "proj"}))
    assert [c["subject"] for c in log["commits"]] == ["first"] and log["more"] is False


def test_commit_runs_no_hook_and_no_program_the_repository_names(gbox, repo, layout):
    marker = layout.root / "ran.txt"
    hostile(repo, marker)
    (repo / "a.txt").write_text("one\nchanged\n")
    (repo / "-n 新.txt").write_text("new\n")
    ok(gbox.execute("git_status", {"path": "proj"}))
    ok(gbox.execute("git_diff", {"path": "proj"}))
    ok(gbox.execute("git_log", {"path": "proj"}))
    files = ["a.txt", "-n 新.txt", ".gitattributes"]
    preview = gbox.preview("git_commit", {"path": "proj", "message": "二 change", "files": files})
    assert preview["kind"] == "git_commit" and preview["file_count"] == 3
    assert not marker.exists(), marker.read_text()
    args = {"path": "proj", "message": "二 change\n\nbody", "files": files}
    done = ok(gbox.execute("git_commit", args))
    assert not marker.exists(), marker.read_text()
    assert git(repo, "log", "-1", "--format=%B").strip() == "二 change\n\nbody"
    assert git(repo, "show", "HEAD:-n 新.txt") == "new\n"  # stored as written: no clean filter
    assert done["commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert git(repo, "status", "--porcelain") == ""
    assert marker.exists()  # the same repository under plain git does run its programs


def test_plain_git_would_run_the_hostile_config(repo, layout):
    """The hostile setup is real: plain git status and diff run the programs it names."""
    marker = layout.root / "ran.txt"
    hostile(repo, marker)
    (repo / "a.txt").write_text("changed\n")
    git(repo, "status")
    assert marker.exists()
    marker.unlink()
    git(repo, "diff")
    assert marker.exists()


def test_commit_of_what_is_staged_and_nothing_staged(gbox, repo):
    refused = gbox.execute("git_commit", {"path": "proj", "message": "nothing"})
    assert refused["code"] == "git_nothing_to_commit"
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    (repo / "a.txt").write_text("unstaged\n")
    ok(gbox.execute("git_commit", {"path": "proj", "message": "add b"}))
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["b.txt"]
    assert (
        gbox.execute("git_commit", {"path": "proj", "message": "  \n"})["code"]
        == "git_empty_message"
    )


def test_a_git_file_pointing_outside_the_allowed_folders_is_refused(gbox, layout):
    real = make_repo(layout.outside / "real")
    inside = layout.work / "looks-local"
    inside.mkdir()
    (inside / ".git").write_text(f"gitdir: {real / '.git'}\n")
    for name, args in (
        ("git_status", {}),
        ("git_diff", {}),
        ("git_log", {}),
        ("git_commit", {"message": "x", "files": ["a.txt"]}),
    ):
        result = gbox.execute(name, {"path": "looks-local", **args})
        assert result["success"] is False and "outside" in result["error"], (name, result)


def test_a_folder_inside_a_repository_rooted_outside_is_refused(layout, policy_for, journal):
    make_repo(layout.root / "big")
    sub = layout.root / "big" / "sub"
    sub.mkdir()
    box = Toolbox(policy_for(allowed_dirs=[sub]), registry=ToolRegistry(GIT_TOOLS), journal=journal)  # type: ignore[arg-type]
    result = box.execute("git_commit", {"path": str(sub), "message": "x"})
    assert result["success"] is False and "outside" in result["error"]


def test_not_a_repository_and_git_missing(gbox, layout, monkeypatch):
    (layout.work / "plain").mkdir()
    assert gbox.execute("git_status", {"path": "plain"})["code"] == "git_not_repository"
    monkeypatch.setenv("PATH", str(layout.root / "nowhere"))
    missing = gbox.execute("git_status", {"path": "plain"})
    assert missing["code"] == "git_missing" and "install git" in missing["error"]


def test_file_names_with_newlines_and_bidi_controls(gbox, repo):
    names = ["two\nlines.txt", "evil\u202egnp.exe", "é-ü 文件.md"]
    for name in names:
        (repo / name).write_text("z\n")
    status = ok(gbox.execute("git_status", {"path": "proj"}))
    assert sorted(f["path"] for f in status["files"]) == sorted(names)
    # The sandbox refuses a path with a line break by name; staged, it is committed.
    named = gbox.execute("git_commit", {"path": "proj", "message": "n", "files": names[:1]})
    assert named["code"] == "path_control_char"
    done = ok(gbox.execute("git_commit", {"path": "proj", "message": "names", "files": names[1:]}))
    assert sorted(f["path"] for f in done["files"]) == sorted(names[1:])
    git(repo, "add", "--", names[0])
    ok(gbox.execute("git_commit", {"path": "proj", "message": "line break"}))
    assert sorted(git(repo, "ls-files", "-z").split("\0")[:-1]) == sorted(["a.txt", *names])


def test_a_big_diff_is_cut_and_log_is_bounded(gbox, repo):
    (repo / "a.txt").write_text("line\n" * 100_000)
    diff = ok(gbox.execute("git_diff", {"path": "proj", "max_chars": 5000}))
    assert diff["truncated"] is True and len(diff["diff"]) == 5000
    for n in range(5):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"c{n}")
    log = ok(gbox.execute("git_log", {"path": "proj", "max_count": 3}))
    assert [c["subject"] for c in log["commits"]] == ["c4", "c3", "c2"] and log["more"] is True


def test_the_diff_of_a_secret_file_is_withheld(gbox, repo):
    """git_diff shows no more than read_file would: a tracked .env's change is named, not shown."""
    for name in (".env", "id_rsa"):
        (repo / name).write_text("TOKEN=old\n")
    git(repo, "add", ".env", "id_rsa")
    git(repo, "commit", "-q", "-m", "secrets")
    for name in (".env", "id_rsa", "a.txt"):
        (repo / name).write_text("TOKEN=new-secret-value\n")
    diff = ok(gbox.execute("git_diff", {"path": "proj"}))
    assert "new-secret-value" in diff["diff"]  # a.txt's own change
    assert diff["diff"].count("new-secret-value") == 1 and "a/.env" not in diff["diff"]
    assert sorted(diff["withheld"]) == [".env", "id_rsa"]
    assert {f["path"] for f in diff["files"]} == {".env", "id_rsa", "a.txt"}
    git(repo, "add", "-A")
    staged = ok(gbox.execute("git_diff", {"path": "proj", "staged": True}))
    assert staged["diff"].count("new-secret-value") == 1 and len(staged["withheld"]) == 2
    named = gbox.execute("git_diff", {"path": "proj", "staged": True, "files": [".env"]})
    assert named["code"] == "path_secret_name"  # asked by name: refused like read_file


def test_a_git_that_hangs_is_stopped_and_said(gbox, repo, layout, monkeypatch):
    """The time limit holds: a git that never answers is killed and the call says so."""
    from tray_app.tools.builtin import git_run

    fake_bin = layout.root / "bin"
    fake_bin.mkdir()
    hanging = fake_bin / "git"
    hanging.write_text("#!/bin/sh\nsleep 60 &\nexec sleep 60\n")
    hanging.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(git_run, "GIT_TIMEOUT_S", 0.5)
    result = gbox.execute("git_status", {"path": "proj"})
    assert result["code"] == "git_timed_out" and "stopped" in result["error"]


def test_the_commit_preview_counts_new_files_and_flags_secrets(gbox, repo):
    conf = repo / "conf"
    conf.mkdir()
    (conf / "app.ini").write_text("a=1\nb=2\nc=3")  # no final line break: still 3 lines
    (conf / ".env").write_text("TOKEN=x\n")
    (conf / "blob.bin").write_bytes(b"\0\1\2")
    preview = gbox.preview("git_commit", {"path": "proj", "message": "conf", "files": ["conf"]})
    by_path = {f["path"]: f for f in preview["files"]}
    assert by_path["conf/app.ini"]["added"] == 3 and by_path["conf/blob.bin"]["added"] is None
    assert by_path["conf/.env"].get("secret") is True and "secret" not in by_path["conf/app.ini"]
    assert preview["added"] == 4 and "conf/.env  +1 -0  (looks like a secret)" in preview["text"]


def test_a_work_tree_or_git_folder_elsewhere_is_refused(gbox, repo, layout):
    """core.worktree in the repository's config, or .git as a link, pointing outside."""
    git(repo, "config", "core.worktree", str(layout.outside))
    (layout.outside / "x.txt").write_text("outside\n")
    result = gbox.execute("git_status", {"path": "proj"})
    assert result["success"] is False and "outside" in result["error"], result
    linked = layout.work / "linked"
    linked.mkdir()
    real = make_repo(layout.outside / "real")
    (linked / ".git").symlink_to(real / ".git")
    result = gbox.execute("git_log", {"path": "linked"})
    assert result["success"] is False and "outside" in result["error"], result


def test_a_file_changed_after_the_approval_is_not_committed(gbox, repo):
    """The approval is bound to the bytes shown: a change in between commits nothing."""
    (repo / "a.txt").write_text("approved\n")
    args = {"path": "proj", "message": "bound", "files": ["a.txt"]}
    shown = gbox.preview("git_commit", args)
    assert gbox.preview("git_commit", args)["binding"] == shown["binding"]  # stable
    (repo / "a.txt").write_text("swapped in after the approval\n")
    refused = gbox.execute("git_commit", args, bound=shown["binding"])
    assert refused["code"] == "changed_after_approval"
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"
    git(repo, "add", "a.txt")
    staged = {"path": "proj", "message": "staged"}
    shown = gbox.preview("git_commit", staged)
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")  # more staged after the approval
    assert gbox.execute("git_commit", staged, bound=shown["binding"])["success"] is False
    again = gbox.preview("git_commit", staged)
    ok(gbox.execute("git_commit", staged, bound=again["binding"]))
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["a.txt", "b.txt"]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_hung_gits_children_are_gone_after_the_limit(gbox, repo, layout, monkeypatch):
    """What a hung git started is killed with it (its process group), not left running."""
    from tray_app.tools.builtin import git_run

    fake_bin = layout.root / "bin"
    fake_bin.mkdir()
    pid_file = layout.root / "child.pid"
    hanging = fake_bin / "git"
    hanging.write_text(f"#!/bin/sh\nsleep 60 &\necho $! > '{pid_file}'\nwait\n")
    hanging.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(git_run, "GIT_TIMEOUT_S", 0.5)
    assert gbox.execute("git_log", {"path": "proj"})["code"] == "git_timed_out"
    child = int(pid_file.read_text())
    assert not alive(child)


def alive(pid: int) -> bool:
    """Running, not merely a zombie left for init to reap (a container's init may never)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_no_author_anywhere_is_said_plainly(gbox, repo, layout, monkeypatch):
    monkeypatch.setenv("HOME", str(layout.home))  # no ~/.gitconfig there
    monkeypatch.setenv("EMAIL", "")
    (repo / "a.txt").write_text("x\n")
    result = gbox.execute("git_commit", {"path": "proj", "message": "m", "files": ["a.txt"]})
    assert result["code"] == "git_no_identity" and "git config --global" in result["error"]
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"
