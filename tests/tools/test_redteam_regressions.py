"""Focused regression tests for what the red-team corpus (``test_redteam_corpus.py``) found."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.tools.shell_helpers import bwrap_problem
from tray_app.tools.fs.fs_safe import iso_time
from tray_app.tools.sandbox import policy as sandbox
from tray_app.tools.toolbox import Toolbox


def test_deeply_nested_json_arguments_are_refused_not_raised(box: Toolbox) -> None:
    # json.loads raises RecursionError (not a ValueError) on "[[[[..." nested 100 000 deep.
    for raw in ("[" * 100_000, '{"path": ' + "[" * 50_000 + "]" * 50_000 + "}"):
        for name in ("read_file", "write_file"):
            result = box.execute(name, raw)
            assert result["success"] is False
            assert "nested too deeply" in result["error"]
            assert box.preview(name, raw)["kind"] == "error"


def test_infinite_numbers_are_clamped_not_raised(box: Toolbox, layout) -> None:
    # JSON "Infinity" and "1e999" parse to float('inf'); int(inf) raised OverflowError.
    (layout.work / "a.txt").write_text("one\ntwo\n")
    result = box.execute(
        "read_file", '{"path": "a.txt", "start_line": -Infinity, "end_line": 1e999}'
    )
    assert result["success"] is True and result["content"] == "one\ntwo\n"
    listing = box.execute("list_directory", {"path": ".", "recursive": True, "max_depth": 1e999})
    assert listing["success"] is True
    found = box.execute("search_files", '{"path": ".", "query": "two", "max_results": Infinity}')
    assert found["success"] is True and found["total_matches"] == 1
    nan = box.execute("read_file", {"path": "a.txt", "start_line": float("nan")})
    assert nan["success"] is False and "finite" in nan["error"]


def test_refusals_never_name_what_a_link_outside_leads_to(box: Toolbox, layout) -> None:
    # The resolved path in "(resolved to …)" disclosed names of files outside the allowed
    # folders: chains through links there, dangling targets, loops, secret-looking names.
    hidden = "SECRET-NAME-7c1d"
    (layout.outside / f"{hidden}.txt").write_text("x")
    (layout.outside / "hop").symlink_to(layout.outside / f"{hidden}.txt")
    (layout.outside / "loop").symlink_to(layout.outside / "loop")
    links = {
        "chain": layout.outside / "hop",
        "dangling": layout.outside / f"{hidden}-dir" / "new.txt",
        "to_key": layout.outside / f"{hidden}.pem",
        "to_loop": layout.outside / "loop",
    }
    for name, target in links.items():
        (layout.work / name).symlink_to(target)
    raws = [*links, str(layout.outside / "hop"), "chain/x", "to_loop/x"]
    for raw in raws:
        for tool in ("read_file", "write_file", "list_directory", "search_files"):
            args = {"path": raw, "content": "x", "query": "x"}
            result = box.execute(tool, args)
            assert result["success"] is False, (tool, raw)
            assert hidden not in result["error"] and "loop at" not in result["error"], result
            preview = box.preview(tool, args)
            assert hidden not in str(preview)
    # A path that leads outside without a link still says where it resolved to.
    message = box.execute("read_file", {"path": "../outside/x.txt"})["error"]
    assert str(layout.outside / "x.txt") in message and "outside the allowed folders" in message


@pytest.mark.parametrize("stamp", [2**40, -(2**40), 2**62, float("inf")])
def test_a_timestamp_beyond_the_year_9999_gives_a_time_not_a_crash(stamp: float) -> None:
    # datetime.fromtimestamp raised ValueError/OverflowError, and list_directory of the folder
    # holding such a file failed as a whole ("failed unexpectedly").
    assert iso_time(stamp) in ("9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z")
    assert iso_time(0) == "1970-01-01T00:00:00Z"


def test_listing_a_folder_with_a_far_future_file_on_tmpfs(policy_for, monkeypatch) -> None:
    # /tmp is tmpfs on many systems; here the tmpfs at hand is /dev/shm, so /dev is not a
    # blocked system folder for this one test.
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm (tmpfs keeps 64-bit times; ext4 clamps them)")
    monkeypatch.setattr(sandbox, "POSIX_SYSTEM_DIRS", ("/etc", "/sys", "/proc"))
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        work = Path(folder)
        (work / "future.txt").write_text("x")
        (work / "normal.txt").write_text("y")
        os.utime(work / "future.txt", (2**40, 2**40))
        if os.stat(work / "future.txt").st_mtime < 2**40:
            pytest.skip("this /dev/shm clamps times")
        box = Toolbox(policy_for(allowed_dirs=[work]))
        result = box.execute("list_directory", {"path": str(work)})
        assert result["success"] is True, result
        assert [e["name"] for e in result["entries"]] == ["future.txt", "normal.txt"]


def test_sandboxed_commands_cannot_change_the_policys_app_folders(layout) -> None:
    # The sandbox took the app's folders from METONA_HOME, never from the policy it was given,
    # so a command could rewrite the settings the policy protects (and grant itself more).
    problem = bwrap_problem()
    if problem:
        pytest.skip(problem)
    settings = layout.home / ".config" / "metona-tray" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{}")
    policy = sandbox.SandboxPolicy(
        allowed_dirs=[layout.home],
        workspace=layout.home,
        protected_dirs=[settings.parent],
        run_command_enabled=True,
        sandbox_enabled=True,
        home=layout.home,
    )
    box = Toolbox(policy)
    command = f'echo \'{{"allowed_dirs": ["/"]}}\' > {settings}; rm -f {settings}'
    result = box.execute("run_command", {"command": command})
    assert result["sandboxed"] is True and result["success"] is False, result
    assert settings.read_text() == "{}"
    assert box.execute("run_command", {"command": "touch fine.txt"})["success"] is True


def test_a_credential_folder_that_is_a_link_is_hidden_in_the_sandbox(layout) -> None:
    # Only real folders were masked: with ~/.gnupg a link (GNU stow folds folders that way)
    # a sandboxed command read the keys through it or at the link's target.
    problem = bwrap_problem()
    if problem:
        pytest.skip(problem)
    real = layout.home / "dotfiles" / "gnupg"
    real.mkdir(parents=True)
    (real / "private.key").write_text("SECRET-GPG-KEY")
    (layout.home / ".gnupg").symlink_to(real)
    policy = sandbox.SandboxPolicy(
        allowed_dirs=[layout.home],
        workspace=layout.home,
        run_command_enabled=True,
        sandbox_enabled=True,
        home=layout.home,
    )
    command = f"cat {layout.home}/.gnupg/private.key {real}/private.key; ls {real}"
    result = Toolbox(policy).execute("run_command", {"command": command})
    assert result["sandboxed"] is True
    assert "SECRET-GPG-KEY" not in result["stdout"] and "private.key" not in result["stdout"]
    ok = Toolbox(policy).execute("run_command", {"command": "echo hi > note.txt && cat note.txt"})
    assert ok["stdout"] == "hi\n"


@pytest.mark.parametrize("name", [["read_file"], {"read_file": 1}, None, 5])
def test_a_tool_name_that_is_not_a_string_is_unknown_not_raised(box: Toolbox, name) -> None:
    # An unhashable name (a list or dict from a malformed call) raised TypeError in the lookup.
    result = box.execute(name, {"path": "x"})
    assert result["success"] is False and "unknown tool" in result["error"]
    assert box.preview(name, {"path": "x"})["kind"] == "error"
