"""The attack half of the red-team corpus, by class: places a call must never touch (system
folders, links that lead out, roots and ancestors to delete). Placeholders: see ``World.fill``;
``deny`` and ``any`` as in ``redteam_paths``.
"""

from __future__ import annotations

import os
from typing import Any

from redteam_paths import PWNED, each, every_tool
from redteam_world import Case, World

# ---- /proc, /dev, system folders ------------------------------------------------------------

SYSTEM = [
    "/proc/self/cwd/secret.txt",  # the cwd is the outside folder
    "/proc/self/cwd",
    "/proc/self/cwd/../work/README.md",
    "/proc/self/root@O@/secret.txt",
    "/proc/self/root/etc/passwd",
    "/proc/thread-self/root@O@/secret.txt",
    "/proc/1/root@O@/secret.txt",
    "/proc/self/environ",
    "/proc/self/cmdline",
    "/proc/self/fd/0",
    "/proc/self/fd",
    "/proc/self/mem",
    "/proc/self/maps",
    "/dev/fd/0",
    "/dev/fd/3",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/zero",
    "/dev/urandom",
    "/dev/null",
    "/dev/shm/pwned",
    "/dev/tcp/127.0.0.1/80",
    "/sys/kernel/hostname",
    "/etc/passwd",
    "/etc/shadow",
    "/etc",
    "/etc/cron.d/pwned",
    "/root/.bashrc",
    "/root",
    "/boot",
    "/var/tmp/pwned.txt",
    "/usr/bin/env",
    "/work/main/pyproject.toml",
]


def system() -> list[Case]:
    return each(SYSTEM)


# ---- symlinks, for every tool ---------------------------------------------------------------

LINKS_OUT = [
    "link_out_file",
    "link_out_rel",
    "link_out_dir",
    "link_out_dir/",
    "link_out_dir/.",
    "link_out_dir/..",
    "link_out_dir/secret.txt",
    "link_out_dir/sub/deeper.txt",
    "link_out_dir/new.txt",
    "link_out_dir/../outside/secret.txt",
    "link_evil",
    "link_evil/secret.txt",
    "chain1",
    "src/chain2",
    "chain_named",
    "chain_dangling",
    "chain_dangling/new.txt",
    "dangling_out",
    "dangling_out_dir",
    "dangling_out_dir/new.txt",
    "loop_a",
    "loop_a/x",
    "self_loop",
    "self_loop/x",
    "to_outside_loop",
    "link_root",
    "link_root@O@/secret.txt",
    "link_root/etc/passwd",
    "link_etc/passwd",
    "link_proc_root@O@/secret.txt",
    "link_proc_root/etc/shadow",
    "link_proc_cwd/secret.txt",
    "link_dev_zero",
    "link_home",
    "link_home/private.txt",
    "link_ssh/id_rsa",
    "link_ssh/config",
    "link_app/settings.json",
    "link_env",
    "link_hard",
    "link_dotdot",
    "link_dotdot/outside/secret.txt",
    "link_self_ws/../outside/secret.txt",
    "parentlink/secret.txt",
    "parentlink/new.txt",
    "parentlink/newdir/new.txt",
    "parentlink/../outside/secret.txt",
    "@O@/hop",
    "@O@/hop_named",
    "@O@/link_back/../outside/secret.txt",
    "mixed/out_file",
    "mixed/out_dir/secret.txt",
    "mixed/out_rel/deeper.txt",
    "legit_links/to_dir/../../outside/secret.txt",
]
LINKS_BACK_IN = ["@O@/link_back/src/util.py", "link_out_dir/../work/src/util.py"]
# Removing a link removes the link; its target (checked by the snapshot) stays.
LINKS_REMOVED = [
    "link_out_file",
    "link_out_dir",
    "link_evil/",
    "chain1",
    "dangling_out",
    "loop_a",
    "self_loop",
    "link_root",
    "link_home",
    "link_ssh",
    "link_self_ws",
    "link_dotdot",
    "parentlink",
    "link_fifo",
]
LINKS_FOLLOWED_BY_DELETE = [
    "link_out_file/.",
    "link_out_file/..",
    "chain1/.",
    "link_self_ws/.",
    "link_dotdot/.",
    "link_root/.",
    "link_home/.",
    "link_out_dir/secret.txt",
    "parentlink/secret.txt",
    "parentlink/sub",
    "link_evil/src",
]


def _link_gone(world: World, result: dict[str, Any]) -> str | None:
    return f"{result['path']} is still there" if os.path.lexists(result["path"]) else None


def symlinks() -> list[Case]:
    cases = [c for c in each(LINKS_OUT) if c.tool != "delete_file"]
    cases += [c for c in each(LINKS_BACK_IN, "any") if c.tool == "read_file"]
    cases += [
        Case("write_file", {"path": "link_git/hooks/post-checkout", "content": PWNED}),
        Case("read_file", {"path": "link_git/config"}, "any"),
        *[
            Case(c.tool, c.args, "any" if c.tool == "get_file_info" else c.expect)  # lstat only
            for c in every_tool("link_fifo")
            if c.tool != "delete_file"
        ],
    ]
    for raw in LINKS_FOLLOWED_BY_DELETE:
        cases += [Case("delete_file", {"path": raw, "recursive": r}) for r in (False, True)]
    cases += [Case("delete_file", {"path": raw}, "ok", _link_gone) for raw in LINKS_REMOVED]
    return cases


# ---- deleting roots, ancestors, home, the workspace -----------------------------------------

DELETE_ROOTS = [
    ".",
    "./",
    "..",
    "../",
    "../work",
    "@W@",
    "@W@/",
    "@W@/.",
    "@W@//",
    "src/..",
    "src/../",
    "./src/..",
    "odd/..",
    "legit_links/to_dir/..",
    "link_dotdot/work",
    "link_dotdot/work/",
    "loops/up/../work",
    "loops/up/loops/..",
    "@O@/link_back",
    "@O@/link_back/.",
    "~",
    "~/",
    "@H@",
    "/",
    "@T@",
    "/tmp",
    "@O@",
    "@O@/secret.txt",
    "@E@",
    ".git",
    ".git/",
    ".git/config",
    ".git/hooks",
    ".env",
    "credentials",
    "credentials/readme.txt",
    "mixed_secret",
    "secrets",
    "nested",
    "hard_out.txt",
    "hard_a.txt",
    "",
    " ",
]


def deletes() -> list[Case]:
    cases = [
        Case("delete_file", {"path": raw, "recursive": r})
        for raw in DELETE_ROOTS
        for r in (False, True)
    ]
    cases += [Case("delete_file", {"path": "src"}, note="not empty, not recursive")]
    return cases
