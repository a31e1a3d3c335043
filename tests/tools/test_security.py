"""The file tools under attack, by attack class, always through ``Toolbox.execute``.

Each test says what must not happen (a read, write, create or delete outside the allowed
folder; a secret in any output; a hang) and checks the disk afterwards, not only the message.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.tools.attack_helpers import SECRET, assert_all_refused, every_call, leaked, ok, refused
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.toolbox import Toolbox

# ---- security cases 1–3 --------------------------------------------


def test_security_1_ssh_private_key(box, policy_for, layout):
    ssh = layout.home / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(SECRET)
    home_box = Toolbox(policy_for(allowed_dirs=[layout.home]), registry=ToolRegistry(FILE_TOOLS))
    for raw in ("~/.ssh/id_rsa", str(ssh / "id_rsa"), "~/.ssh"):
        assert_all_refused(home_box, raw)
    assert (ssh / "id_rsa").read_text() == SECRET


def test_security_2_etc_crontab_even_with_everything_allowed(policy_for):
    everything = Toolbox(policy_for(allowed_dirs=["/"]), registry=ToolRegistry(FILE_TOOLS))
    before = Path("/etc/crontab").read_bytes() if Path("/etc/crontab").exists() else None
    message = refused(everything.execute("write_file", {"path": "/etc/crontab", "content": "x"}))
    assert "system folder /etc" in message
    after = Path("/etc/crontab").read_bytes() if Path("/etc/crontab").exists() else None
    assert before == after


def test_security_3_traversal_to_etc_passwd(box, layout):
    for raw in ("../../etc/passwd", "../" * 30 + "etc/passwd", "a/../../../../../../etc/passwd"):
        message = refused(box.execute("read_file", {"path": raw}))
        assert "root:" not in message


# ---- .. in every spelling, and the prefix sibling -----------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "../outside/victim.txt",
        "./../outside/victim.txt",
        "a/../../outside/victim.txt",
        "missing/../../outside/victim.txt",
        "../outside",
        "../work_evil/victim.txt",
    ],
)
def test_dot_dot_and_prefix_siblings_reach_nothing(box, layout, snapshot, raw):
    (layout.work / "a").mkdir()
    (layout.outside / "victim.txt").write_text("victim")
    evil = layout.root / "work_evil"
    evil.mkdir()
    (evil / "victim.txt").write_text("victim")
    before = snapshot(layout.root)
    assert_all_refused(box, raw)
    assert snapshot(layout.root) == before


def test_encoded_and_backslash_dots_are_literal_names(box, layout):
    if os.name == "nt":
        pytest.skip("backslash is a separator on Windows")
    for raw in ("..%2foutside%2fx.txt", "..\\outside\\x.txt", "%2e%2e/x.txt"):
        result = ok(box.execute("write_file", {"path": raw, "content": "literal"}))
        assert Path(result["path"]).parent in (layout.work, layout.work / "%2e%2e")
    assert list(layout.outside.iterdir()) == []


# ---- symlinks ---------------------------------------------------------------------------


def test_symlinks_out_of_the_folder_reach_nothing(box, layout, snapshot):
    (layout.outside / "f.txt").write_text("outside")
    (layout.outside / "dir").mkdir()
    (layout.outside / "dir" / "g.txt").write_text("outside")
    links = {
        "to_dir": layout.outside / "dir",
        "to_file": layout.outside / "f.txt",
        "relative": Path("../outside/f.txt"),
        "chain1": Path("chain2"),
        "chain2": Path("to_dir"),
    }
    for name, target in links.items():
        (layout.work / name).symlink_to(target)
    (layout.work / "bait.txt").write_text("moved over links")
    before = snapshot(layout.outside)
    for raw in ("to_dir/g.txt", "to_file", "relative", "chain1/g.txt", "chain1/new.txt"):
        for name, args in every_call(raw):
            if name in ("delete_file", "move_file") and "/" not in raw:
                continue  # deleting or moving the link itself is allowed: tested below
            assert box.execute(name, args)["success"] is False, (name, raw)
    assert snapshot(layout.outside) == before


def test_a_new_file_through_a_dangling_link_is_not_created_outside(box, layout):
    (layout.work / "dangling").symlink_to(layout.outside / "created.txt")
    (layout.work / "dangling_dir").symlink_to(layout.outside / "newdir")
    refused(box.execute("write_file", {"path": "dangling", "content": "x"}))
    refused(box.execute("write_file", {"path": "dangling_dir/x.txt", "content": "x"}))
    refused(box.execute("create_directory", {"path": "dangling_dir/sub"}))
    assert list(layout.outside.iterdir()) == []


def test_deleting_links_never_touches_their_targets(box, layout, snapshot):
    (layout.outside / "f.txt").write_text("keep")
    (layout.outside / "dir").mkdir()
    (layout.outside / "dir" / "g.txt").write_text("keep")
    for name, target in (("l_file", "f.txt"), ("l_dir", "dir"), ("l_slash", "dir")):
        (layout.work / name).symlink_to(layout.outside / target)
    before = snapshot(layout.outside)
    ok(box.execute("delete_file", {"path": "l_file"}))
    ok(box.execute("delete_file", {"path": "l_dir", "recursive": True}))
    ok(box.execute("delete_file", {"path": "l_slash/", "recursive": True}))
    assert snapshot(layout.outside) == before
    (layout.work / "l_move").symlink_to(layout.outside / "f.txt")
    ok(box.execute("move_file", {"source": "l_move", "destination": "renamed_link"}))
    (layout.work / "bait.txt").write_text("bait")
    ok(
        box.execute(
            "move_file", {"source": "bait.txt", "destination": "renamed_link", "overwrite": True}
        )
    )
    assert snapshot(layout.outside) == before
    assert (layout.work / "renamed_link").read_text() == "bait"
    (layout.work / "renamed_link").unlink()
    assert list(layout.work.iterdir()) == []


@pytest.mark.parametrize("trash_works", [True, False])
def test_recursive_delete_through_symlinks_spares_the_targets(
    box, layout, snapshot, test_trash, trash_works
):
    test_trash.fail = not trash_works
    (layout.outside / "precious").mkdir()
    (layout.outside / "precious" / "data.txt").write_text("keep")
    (layout.outside / "file.txt").write_text("keep")
    tree = layout.work / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "own.txt").write_text("mine")
    (tree / "sub" / "to_dir").symlink_to(layout.outside / "precious")
    (tree / "to_file").symlink_to(layout.outside / "file.txt")
    (tree / "loop").symlink_to(tree)
    before = snapshot(layout.outside)
    ok(box.execute("delete_file", {"path": "tree", "recursive": True}))
    assert not os.path.lexists(tree)
    assert snapshot(layout.outside) == before


@pytest.mark.timeout(30)
def test_symlink_loops_do_not_hang_list_or_search(box, layout):
    (layout.work / "sub").mkdir()
    (layout.work / "sub" / "x.txt").write_text("needle")
    (layout.work / "sub" / "up").symlink_to("..")
    (layout.work / "self").symlink_to(".")
    (layout.work / "a").symlink_to("b")
    (layout.work / "b").symlink_to("a")
    listing = ok(box.execute("list_directory", {"path": ".", "recursive": True, "max_depth": 10}))
    search = ok(box.execute("search_files", {"path": ".", "query": "needle"}))
    types = {e["name"]: e["type"] for e in listing["entries"]}
    assert types["self"] == types["a"] == types[os.path.join("sub", "up")] == "symlink"
    assert len(listing["entries"]) == 6
    assert [r["path"] for r in search["results"]] == [str(layout.work / "sub" / "x.txt")]
    refused(box.execute("read_file", {"path": "a"}))


# ---- hard links -------------------------------------------------------------------------


def test_hard_links_to_outside_files_are_refused(box, layout):
    victim = layout.outside / "victim.txt"
    victim.write_text(SECRET)
    os.link(victim, layout.work / "alias.txt")
    outputs = [
        box.execute("read_file", {"path": "alias.txt"}),
        box.execute("write_file", {"path": "alias.txt", "content": "pwned"}),
        box.execute("delete_file", {"path": "alias.txt"}),
        box.execute("search_files", {"path": ".", "query": SECRET[:6]}),
    ]
    assert all("hard links" in o["error"] for o in outputs[:3])
    assert not leaked(outputs)
    assert victim.read_text() == SECRET and victim.stat().st_nlink == 2
    (layout.work / "dir").mkdir()
    os.link(victim, layout.work / "dir" / "inner.txt")
    assert "hard links" in refused(box.execute("delete_file", {"path": "dir", "recursive": True}))
    assert (layout.work / "dir" / "inner.txt").exists()


# ---- special files: FIFOs, devices, /proc -------------------------------------------------


@pytest.mark.timeout(20)
def test_a_fifo_never_blocks_any_tool(box, layout):
    os.mkfifo(layout.work / "pipe")  # opening it to read would block: the timeout fails it
    assert "named pipe" in refused(box.execute("read_file", {"path": "pipe"}))
    assert "named pipe" in refused(box.execute("write_file", {"path": "pipe", "content": "x"}))
    search = ok(box.execute("search_files", {"path": ".", "query": "x"}))
    listing = ok(box.execute("list_directory", {"path": "."}))
    preview = box.preview("write_file", {"path": "pipe", "content": "x"})
    assert search["results"] == [] and listing["entries"][0]["type"] == "other"
    assert preview["kind"] == "error"


@pytest.mark.timeout(20)
def test_a_device_node_inside_the_folder_is_refused(box, layout):
    try:
        os.mknod(layout.work / "zero", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (PermissionError, AttributeError, OSError):
        pytest.skip("cannot create device nodes here")
    assert "device" in refused(box.execute("read_file", {"path": "zero"}))
    ok(box.execute("search_files", {"path": ".", "query": "x"}))


@pytest.mark.parametrize("raw", ["/dev/zero", "/proc/self/environ", "/proc/self/cmdline"])
def test_dev_and_proc_are_unreachable_even_with_everything_allowed(policy_for, layout, raw):
    everything = Toolbox(policy_for(allowed_dirs=["/"]), registry=ToolRegistry(FILE_TOOLS))
    assert "system folder" in refused(everything.execute("read_file", {"path": raw}))
    (layout.work / "alias").symlink_to(raw)
    assert "system folder" in refused(
        everything.execute("read_file", {"path": str(layout.work / "alias")})
    )


def test_proc_environ_leaks_nothing_through_a_link(box, layout, monkeypatch):
    monkeypatch.setenv("METONA_TEST_SECRET", SECRET)
    (layout.work / "env").symlink_to("/proc/self/environ")
    outputs = [box.execute(n, a) for n, a in every_call("env")]
    outputs.append(box.execute("search_files", {"path": ".", "query": SECRET}))
    assert not leaked(outputs)


# ---- huge, sparse and deep --------------------------------------------------------------


@pytest.mark.timeout(30)
def test_a_10_gb_sparse_file_is_refused_fast(box, layout):
    huge = layout.work / "huge.img"
    with open(huge, "wb") as handle:
        handle.truncate(10 * 1024**3)
        handle.seek(10 * 1024**3 - 1)
        handle.write(b"x")  # found only by a search that reads all ten gigabytes
    assert "10.0 GB" in refused(box.execute("read_file", {"path": "huge.img"}))
    search = ok(box.execute("search_files", {"path": ".", "query": "x", "search_type": "content"}))
    assert search["results"] == []
    preview = box.preview("write_file", {"path": "huge.img", "content": "small"})
    delete_preview = box.preview("delete_file", {"path": "huge.img"})
    assert preview["kind"] == "diff" and preview["size_before"] == 10 * 1024**3
    assert delete_preview["size"] == 10 * 1024**3


def test_deep_trees_are_bounded(box, layout):
    deep = layout.work
    for _ in range(40):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "bottom.txt").write_text("needle")
    listing = ok(box.execute("list_directory", {"path": ".", "recursive": True, "max_depth": 50}))
    assert len(listing["entries"]) == 10  # max_depth is clamped to 10
    search = ok(box.execute("search_files", {"path": ".", "query": "needle"}))
    assert search["results"] == [] and search["truncated"] is True


def test_a_tree_too_deep_to_check_is_not_deleted(box, layout, monkeypatch):
    from tray_app.tools.builtin import delete_file as delete_module

    monkeypatch.setattr(delete_module, "DELETE_MAX_DEPTH", 5)
    deep = layout.work / "t"
    for _ in range(8):
        deep = deep / "d"
    deep.mkdir(parents=True)
    assert "cannot be checked" in refused(
        box.execute("delete_file", {"path": "t", "recursive": True})
    )
    assert deep.is_dir()
