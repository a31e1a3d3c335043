"""SandboxPolicy.resolve: every rule of the path policy, one behaviour per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tray_app.base.errors import SandboxViolation
from tray_app.base.paths import AppPaths
from tray_app.tools.sandbox.policy import SandboxPolicy

ACCESSES = ("read", "write", "delete", "list", "search", "cwd")


def refused(policy: SandboxPolicy, raw: str, access: str = "read") -> str:
    with pytest.raises(SandboxViolation) as info:
        policy.resolve(raw, access=access)  # type: ignore[arg-type]
    return str(info.value)


# ---- where relative paths and ~ go ---------------------------------------------------------


def test_relative_paths_resolve_against_the_workspace_not_the_cwd(layout, policy, monkeypatch):
    monkeypatch.chdir(layout.outside)
    assert policy.resolve("notes.txt", access="read") == layout.work / "notes.txt"
    assert policy.resolve("./a/b.txt", access="write") == layout.work / "a" / "b.txt"
    assert policy.resolve(".", access="list") == layout.work


def test_an_explicit_workspace_inside_an_allowed_folder_is_used(layout, policy_for):
    (layout.work / "proj").mkdir()
    policy = policy_for(workspace=layout.work / "proj")
    assert policy.workspace == layout.work / "proj"
    assert policy.resolve("x.py", access="read") == layout.work / "proj" / "x.py"


def test_the_default_workspace_is_the_first_allowed_folder_that_is_not_blocked(layout, policy_for):
    policy = policy_for(allowed_dirs=["/root", layout.work, layout.outside])
    assert policy.workspace == layout.work


def test_a_workspace_outside_the_allowed_folders_does_not_widen_them(layout, policy_for):
    policy = policy_for(workspace=layout.outside)
    assert "outside the allowed folders" in refused(policy, "x.txt")


def test_tilde_means_the_policy_home(layout, policy_for):
    policy = policy_for(allowed_dirs=[layout.home])
    assert policy.resolve("~", access="list") == layout.home
    assert policy.resolve("~/docs/a.md", access="write") == layout.home / "docs" / "a.md"


def test_tilde_user_and_variables_are_never_expanded(layout, policy, monkeypatch):
    monkeypatch.setenv("EVIL", "/etc")
    assert policy.resolve("$EVIL/passwd", access="read") == layout.work / "$EVIL" / "passwd"
    assert policy.resolve("%EVIL%", access="read") == layout.work / "%EVIL%"
    assert policy.resolve("${HOME}", access="read") == layout.work / "${HOME}"
    assert policy.resolve("~root/x", access="read") == layout.work / "~root" / "x"


# ---- refused before touching the disk ------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    ["a\x00b", "notes\n.txt", "x\r", "\x1b[2Jclear", "tab\there"],
)
def test_control_characters_are_refused(policy, raw):
    assert "control character" in refused(policy, raw)


@pytest.mark.parametrize(
    "raw",
    ["file:///etc/passwd", "http://example.com/x", "https://x/y", "ftp://h/f", "FILE:/etc/x"],
)
def test_urls_are_refused(policy, raw):
    assert "URL" in refused(policy, raw)


@pytest.mark.parametrize("raw", ["", "   "])
def test_an_empty_path_is_refused(policy, raw):
    assert "empty" in refused(policy, raw)


def test_a_huge_path_is_refused(policy):
    assert "longer than" in refused(policy, "a/" * 5000)


def test_a_non_string_is_refused(policy):
    assert "string" in refused(policy, 42)  # type: ignore[arg-type]


# ---- containment -------------------------------------------------------------------------


def test_a_prefix_sibling_is_not_inside(layout, policy_for):
    evil = layout.root / "work_evil"
    evil.mkdir()
    (evil / "x.txt").write_text("x")
    policy = policy_for()
    assert "outside the allowed folders" in refused(policy, str(evil / "x.txt"))
    assert "outside the allowed folders" in refused(policy, "../work_evil/x.txt")


def test_paths_outside_every_allowed_folder_are_refused_for_every_access(layout, policy):
    target = layout.outside / "f.txt"
    target.write_text("x")
    for access in ACCESSES:
        assert "outside the allowed folders" in refused(policy, str(target), access)


def test_no_allowed_folders_means_nothing_is_allowed(layout, policy_for):
    policy = policy_for(allowed_dirs=[])
    assert "none are set" in refused(policy, str(layout.work / "x"))


def test_relative_allowed_folders_are_ignored(layout, policy_for):
    policy = policy_for(allowed_dirs=["relative/dir", layout.work])
    assert policy.allowed_roots == [layout.work]


def test_allowed_roots_are_real_paths(layout, policy_for):
    link = layout.root / "link_to_work"
    link.symlink_to(layout.work)
    policy = policy_for(allowed_dirs=[link])
    assert policy.allowed_roots == [layout.work]
    assert policy.resolve(str(link / "a.txt"), access="write") == layout.work / "a.txt"


def test_case_folding_applies_only_where_the_file_system_folds(layout, policy_for):
    upper = str(layout.work).upper()
    sensitive = policy_for()
    sensitive.case_insensitive = False
    assert "outside" in refused(sensitive, upper + "/x.txt")
    folding = policy_for()
    folding.case_insensitive = True
    assert folding.resolve(upper + "/x.txt", access="read") == Path(upper + "/x.txt")


# ---- .. in every spelling ----------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "../outside/f.txt",
        "a/../../outside/f.txt",
        "./../outside/f.txt",
        "sub/./../../outside/f.txt",
        "missing/../../outside/f.txt",
        "..",
        "../..",
        "/../../../" + "x",
    ],
)
def test_dot_dot_cannot_leave_the_allowed_folder(layout, policy, raw):
    (layout.work / "a").mkdir()
    (layout.work / "sub").mkdir()
    (layout.outside / "f.txt").write_text("x")
    message = refused(policy, raw)
    assert "outside the allowed folders" in message or "'..'" in message


def test_dot_dot_inside_the_allowed_folder_is_fine(layout, policy):
    (layout.work / "a").mkdir()
    assert policy.resolve("a/../b.txt", access="write") == layout.work / "b.txt"
    assert policy.resolve("new/../b.txt", access="write") == layout.work / "b.txt"


def test_dot_dot_after_a_missing_folder_may_not_climb(policy):
    assert "'..'" in refused(policy, "missing/../../x", "write")


def test_encoded_and_backslash_dots_are_plain_names_on_posix(layout, policy):
    if os.name == "nt":
        pytest.skip("backslash is a separator on Windows")
    assert policy.resolve("..%2foutside", access="read") == layout.work / "..%2foutside"
    assert policy.resolve("..\\..\\outside", access="read") == layout.work / "..\\..\\outside"
    assert policy.resolve("%2e%2e/x", access="read") == layout.work / "%2e%2e" / "x"


def test_double_leading_slashes_are_the_root(policy):
    assert "system folder /etc" in refused(policy, "//etc/passwd")
    assert "system folder /etc" in refused(policy, "///etc//passwd")


# ---- blocked and protected folders win --------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    ["/etc/passwd", "/etc", "/proc/self/environ", "/sys/kernel", "/dev/zero", "/boot", "/root/x"],
)
def test_system_folders_are_blocked_even_when_everything_is_allowed(policy_for, raw):
    policy = policy_for(allowed_dirs=["/"])
    for access in ACCESSES:
        assert "system folder" in refused(policy, raw, access)


def test_proc_self_root_cannot_walk_around_proc(layout, policy_for):
    (layout.work / "a.txt").write_text("x")
    policy = policy_for(allowed_dirs=["/"])
    assert "system folder /proc" in refused(policy, f"/proc/self/root{layout.work}/a.txt")


@pytest.mark.parametrize("name", [".ssh", ".gnupg", ".aws", ".kube", ".config/gcloud"])
def test_credential_folders_in_home_are_blocked(layout, policy_for, name):
    folder = layout.home / name
    folder.mkdir(parents=True)
    (folder / "config").write_text("secret")
    policy = policy_for(allowed_dirs=[layout.home])
    # ~/.kube/config is also refused by name, with its own sentence; .aws and .config/gcloud
    # are refused by name wherever they are (a copy inside an allowed folder too)
    assert "credential" in refused(policy, f"~/{name}/config")
    listed = refused(policy, f"~/{name}", "list")
    assert "credential folder" in listed or "secret file" in listed or "credentials" in listed


def test_a_symlink_to_a_blocked_folder_is_blocked(layout, policy_for):
    (layout.home / ".ssh").mkdir()
    (layout.home / "keys").symlink_to(layout.home / ".ssh")
    policy = policy_for(allowed_dirs=[layout.home])
    assert "credential folder" in refused(policy, "~/keys/config")


def test_a_blocked_folder_that_is_itself_a_link_is_blocked_at_its_target(layout, policy_for):
    real_ssh = layout.home / "dotfiles" / "ssh"
    real_ssh.mkdir(parents=True)
    (layout.home / ".ssh").symlink_to(real_ssh)
    policy = policy_for(allowed_dirs=[layout.home])
    assert "credential folder" in refused(policy, "~/dotfiles/ssh/config")


def test_user_blocked_folders_win_over_allowed_ones(layout, policy_for):
    private = layout.work / "private"
    private.mkdir()
    policy = policy_for(blocked_dirs=[private])
    for access in ACCESSES:
        assert "blocked folder" in refused(policy, "private/diary.txt", access)
    assert policy.resolve("public.txt", access="read") == layout.work / "public.txt"


def test_the_apps_own_folders_are_protected(layout, policy_for, metona_home):
    paths = AppPaths.under(metona_home)
    paths.ensure()
    policy = policy_for(allowed_dirs=[layout.work, metona_home.parent])
    for folder in paths.protected_dirs():
        for access in ACCESSES:
            assert "app's own folder" in refused(policy, str(folder / "x"), access)
    assert "app's own folder" in refused(policy, str(paths.settings_file), "write")


# ---- symlinks ---------------------------------------------------------------------------


def test_symlink_inside_pointing_outside_is_outside(layout, policy):
    (layout.outside / "f.txt").write_text("x")
    (layout.work / "to_file").symlink_to(layout.outside / "f.txt")
    (layout.work / "to_dir").symlink_to(layout.outside)
    assert "outside" in refused(policy, "to_file")
    assert "outside" in refused(policy, "to_dir/f.txt")
    assert "outside" in refused(policy, "to_dir", "list")


def test_relative_and_chained_symlinks_are_followed(layout, policy):
    (layout.outside / "f.txt").write_text("x")
    (layout.work / "rel").symlink_to("../outside/f.txt")
    (layout.work / "c1").symlink_to("c2")
    (layout.work / "c2").symlink_to("rel")
    assert "outside" in refused(policy, "rel")
    assert "outside" in refused(policy, "c1")
    (layout.work / "in.txt").write_text("y")
    (layout.work / "i1").symlink_to("i2")
    (layout.work / "i2").symlink_to("in.txt")
    assert policy.resolve("i1", access="read") == layout.work / "in.txt"


def test_a_dangling_symlink_is_checked_where_it_points(layout, policy):
    (layout.work / "dangling").symlink_to(layout.outside / "new.txt")
    assert "outside" in refused(policy, "dangling", "write")
    (layout.work / "dangling_in").symlink_to(layout.work / "new.txt")
    assert policy.resolve("dangling_in", access="write") == layout.work / "new.txt"


def test_symlink_loops_are_refused(layout, policy):
    (layout.work / "loop").symlink_to("loop")
    (layout.work / "a").symlink_to("b")
    (layout.work / "b").symlink_to("a")
    assert "loop" in refused(policy, "loop")
    assert "loop" in refused(policy, "a/x.txt", "write")


def test_delete_resolves_the_folder_but_not_the_final_link(layout, policy):
    (layout.work / "to_out").symlink_to(layout.outside)
    assert policy.resolve("to_out", access="delete") == layout.work / "to_out"
    assert policy.resolve("to_out/", access="delete") == layout.work / "to_out"
    assert "outside" in refused(policy, "to_out/x", "delete")
    (layout.work / "loop").symlink_to("loop")
    assert policy.resolve("loop", access="delete") == layout.work / "loop"


def test_delete_of_dot_dot_resolves_fully(layout, policy):
    (layout.work / "sub").mkdir()
    assert policy.resolve("sub/..", access="delete") == layout.work


# ---- hard links -------------------------------------------------------------------------


def test_a_file_with_several_hard_links_is_refused_for_every_access(layout, policy):
    (layout.outside / "secret.txt").write_text("outside data")
    os.link(layout.outside / "secret.txt", layout.work / "alias.txt")
    for access in ("read", "write", "delete"):
        assert "hard links" in refused(policy, "alias.txt", access)


def test_a_single_link_file_is_fine(layout, policy):
    (layout.work / "one.txt").write_text("x")
    assert policy.resolve("one.txt", access="write") == layout.work / "one.txt"


# ---- delete protection --------------------------------------------------------------------


def test_roots_home_workspace_and_their_ancestors_are_guarded(layout, policy_for):
    (layout.work / "proj").mkdir()
    policy = policy_for(workspace=layout.work / "proj")
    for path in (layout.work, layout.work / "proj", layout.home, layout.root, Path("/")):
        assert policy.is_allowed_root_or_ancestor(path)
    assert not policy.is_allowed_root_or_ancestor(layout.work / "proj" / "build")
    assert not policy.is_allowed_root_or_ancestor(layout.outside)


# ---- result is usable --------------------------------------------------------------------


def test_resolve_returns_absolute_real_paths(layout, policy: SandboxPolicy) -> None:
    alias = layout.work / "alias"
    alias.symlink_to(layout.work / "real", target_is_directory=True)
    (layout.work / "real").mkdir()
    got = policy.resolve("alias/x.txt", access="write")
    assert got == layout.work / "real" / "x.txt"
    assert got.is_absolute()


def test_dot_dot_collapsing_onto_an_existing_link_is_resolved_again(layout, policy):
    (layout.work / "existing").mkdir()
    (layout.work / "existing" / "link").symlink_to(layout.outside)
    message = refused(policy, "missing/../existing/link/x.txt", "write")
    assert "outside the allowed folders" in message
    (layout.work / "existing" / "inner").symlink_to(layout.work / "existing")
    got = policy.resolve("missing/./../existing/inner/y.txt", access="write")
    assert got == layout.work / "existing" / "y.txt"
