"""The attack half of the red-team corpus, by class. Placeholders: see ``World.fill``.

``deny`` means the call must fail; ``any`` means it may succeed (a literal name inside the
workspace, a link removed as a link) as long as nothing outside changes and nothing leaks.
"""

from __future__ import annotations

import os
from typing import Any

from redteam_world import FILE_TOOLS, Case, World

PWNED = "PWNED by the red team\n"


def every_tool(raw: Any, expect: str = "deny", note: str = "") -> list[Case]:
    """One call of each file tool on ``raw`` (delete last, recursive)."""
    args: dict[str, dict[str, Any]] = {
        "read_file": {"path": raw},
        "write_file": {"path": raw, "content": PWNED},
        "list_directory": {"path": raw, "recursive": True, "include_hidden": True},
        "search_files": {"path": raw, "query": "SECRET"},
        "create_directory": {"path": raw},
        "delete_file": {"path": raw, "recursive": True},
        "edit_file": {"path": raw, "edits": [{"old_text": "SECRET", "new_text": PWNED}]},
        # Onto an existing file without overwrite: a source that passes the sandbox still fails,
        # so no case moves a piece of the world away from the cases after it.
        "move_file": {"source": raw, "destination": "README.md"},
        "read_multiple_files": {"paths": [raw]},
        "directory_tree": {"path": raw, "include_hidden": True, "max_depth": 10},
        "get_file_info": {"path": raw},
    }
    return [Case(tool, args[tool], expect, note=note) for tool in FILE_TOOLS]


def each(raws: list[str], expect: str = "deny", note: str = "") -> list[Case]:
    return [case for raw in raws for case in every_tool(raw, expect, note)]


def reads(raws: list[str], expect: str = "deny", **extra: Any) -> list[Case]:
    return [Case("read_file", {"path": raw, **extra}, expect) for raw in raws]


# ---- traversal in every spelling ---------------------------------------------------------

TRAVERSAL_OUT = [
    "../outside/secret.txt",
    "../outside",
    "..",
    "../",
    "../..",
    "./../outside/secret.txt",
    "src/../../outside/secret.txt",
    "src/./../../outside/secret.txt",
    "..//outside//secret.txt",
    "../outside/./secret.txt",
    "../outside/sub/../secret.txt",
    "src/main.py/../../../outside/secret.txt",
    "missing/../../outside/secret.txt",
    "missing/../../../etc/passwd",
    "missing/deeper/../../../outside",
    "../work_evil/secret.txt",
    "../work_evil",
    "../work_evil/src/main.py",
    "@E@/secret.txt",
    "@W@_evil/secret.txt",
    "@W@_evil",
    "@W@/../outside/secret.txt",
    "@W@/../work_evil/src/main.py",
    "@W@/./../outside",
    "@O@/secret.txt",
    "@O@",
    "@O@/",
    "@O@/.",
    "@O@/secret.txt/",
    "@O@/secret.txt/.",
    "@O@//secret.txt",
    "//@O@/secret.txt",
    "///@O@/secret.txt",
    "/./@O@/secret.txt",
    "/../../../@O_@/secret.txt",
    "@O@/secret.txt.",
    "@O@/secret.txt ",
    "@O@/SECRET.TXT",
    "@O@/sub/deeper.txt",
    "@O@/sub/../../work_evil/secret.txt",
    "@O@/new_file.txt",
    "@O@/newdir/new_file.txt",
    "@O@/keyboard.ts",
    "@T@",
    "@T@/",
    "/",
    "/tmp",
    "../" * 40 + "etc/passwd",
    "../" * 40 + "@O_@/secret.txt",
    "./" * 1500 + "../outside/secret.txt",
]

# Look like traversal, but are plain names inside the workspace on POSIX.
TRAVERSAL_LITERAL = [
    "....//outside/secret.txt",
    ".../outside/secret.txt",
    "%2e%2e/outside/secret.txt",
    "%2e%2e%2foutside%2fsecret.txt",
    "..%2f..%2foutside%2fsecret.txt",
    "..%c0%af..%c0%afoutside",
    "..%255c..%255coutside",
    "..\\outside\\secret.txt",
    "..\\..\\outside",
    "．．/outside/secret.txt",
    "\u2025/outside/secret.txt",
    ". ./outside/secret.txt",
    "src/.../outside",
]


def traversal() -> list[Case]:
    return each(TRAVERSAL_OUT) + each(TRAVERSAL_LITERAL, "any", "literal name")


# ---- ~, ~user, $VAR, %VAR% ------------------------------------------------------------------

HOME_OUT = [
    "~",
    "~/",
    "~/private.txt",
    "~/notes.txt",
    "~/../outside/secret.txt",
    "~/.ssh/id_rsa",
    "~/.ssh",
    "~//.ssh/config",
    "~/./.aws/credentials",
    "~/.config/metona-tray/settings.json",
    "@H@/private.txt",
    "@H@/../outside/secret.txt",
    "link_home/private.txt",
]
HOME_LITERAL = [
    "~root/.bashrc",
    "~nobody/x",
    "~+/private.txt",
    "~-/private.txt",
    "~~/private.txt",
    "$HOME/private.txt",
    "${HOME}/private.txt",
    "$HOME/../outside/x.txt",
    "%USERPROFILE%\\private.txt",
    "%USERPROFILE%/private.txt",
    "%HOME%/private.txt",
    "$(cat @O@/secret.txt)",
    "`cat @O@/secret.txt`",
    "~\\..\\outside\\secret.txt",
    "~user",
]


def home_and_variables() -> list[Case]:
    return each(HOME_OUT) + each(HOME_LITERAL, "any", "never expanded")


# ---- URLs, control characters, unicode tricks -----------------------------------------------

URLS_AND_CONTROL = [
    "file:///etc/passwd",
    "file://@O@/secret.txt",
    "file:@O@/secret.txt",
    "FILE://@O@/secret.txt",
    "file:secret.txt",
    "File:README.md",
    "http://example.com/secret.txt",
    "https://@O@/secret.txt",
    "smb://server/share/secret.txt",
    "ftp://x/y",
    "secret.txt\x00.png",
    "@O@/secret.txt\x00",
    "README.md\x00/../../outside/secret.txt",
    "\x00",
    "src\nmain.py",
    "odd/new\nline.txt",  # refused on purpose: a newline hides the real path in the dialog
    "\r@O@/secret.txt",
    "src/\t/main.py",
    "src/\x1b[31mmain.py",
    "\x7f",
    "\ud800",
    "src/\udfff.txt",
    "",
    " ",
    "\t",
]
UNICODE_LITERAL = [
    "\\\\server\\share\\secret.txt",
    "\\\\?\\C:\\Windows\\win.ini",
    "\\\\.\\PhysicalDrive0",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "CON",
    "NUL.txt",
    ".env::$DATA",
    "．env",
    ".ｅnv",
    ".env\u200b",
    "report\u202etxt.exe",
    "src/\udcff.txt",
    "javascript:alert(1)",
    "data:text/plain,hi",
]


def urls_and_control() -> list[Case]:
    return each(URLS_AND_CONTROL) + each(UNICODE_LITERAL, "any", "literal name")


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
