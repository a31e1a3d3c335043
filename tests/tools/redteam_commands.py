"""Red-team attacks on the home folder's credential and app folders, and on run_command
(unsandboxed and in bubblewrap); and the legitimate calls of the same kinds.
"""

from __future__ import annotations

import os
from typing import Any

from redteam_legit import Check, content_is, finds, on_disk
from redteam_paths import each
from redteam_world import Case, World


def home_deletes() -> list[Case]:
    raws = ["~", "~/", "@H@", "@H@/.", "~/..", "~/.ssh", "~/.ssh/id_rsa", "~/.config"]
    raws += ["~/.config/metona-tray", "~/.local", "~/.local/share", "~/.aws/config", "~/.gnupg"]
    return [
        Case("delete_file", {"path": raw, "recursive": r}) for raw in raws for r in (False, True)
    ]


# ---- credential and app folders under an allowed home ---------------------------------------

PROTECTED = [
    "~/.ssh/id_rsa",
    "~/.ssh/config",
    "~/.ssh/known_hosts",
    "~/.ssh/authorized_keys",
    "~/.ssh",
    "~/.ssh/",
    "@H@/.ssh/config",
    "~/.aws/config",
    "~/.aws",
    "~/.gnupg/pubring.kbx",
    "~/.gnupg",
    "~/dotfiles/gnupg/pubring.kbx",
    "~/dotfiles/gnupg",
    "~/.config/gh/hosts.yml",
    "~/.config/gh",
    "~/.config/metona-tray/settings.json",
    "~/.config/metona-tray",
    "~/.local/share/metona-tray/chats.sqlite3",
    "~/.local/share/metona-tray",
    "~/./.ssh/config",
    "~/.ssh/../.ssh/config",
    "~/missing/../.aws/config",
    "~/.SSH/config",
    "~/.Config/metona-tray/settings.json",
    "link_ssh/config",
    "link_app/settings.json",
    "link_home/.ssh/config",
    "link_home/.config/metona-tray/settings.json",
]


def protected() -> list[Case]:
    cases = each(PROTECTED)
    cases += [
        Case("list_directory", {"path": "~", "recursive": True, "include_hidden": True}, "ok"),
        Case("list_directory", {"path": "~/.config", "include_hidden": True}, "ok"),
        Case("search_files", {"path": "~", "query": "SECRET", "search_type": "content"}, "ok"),
        Case("search_files", {"path": "~", "query": "*", "search_type": "filename"}, "ok"),
        Case("search_files", {"path": "~/.config", "query": "token"}, "ok"),
        Case("search_files", {"path": "link_home", "query": "SECRET"}, "ok"),
    ]
    return cases + home_deletes()


# ---- run_command ----------------------------------------------------------------------------


def commands() -> list[Case]:
    cwds = ["@O@", "../outside", "link_out_dir", "~", "/", "/proc/self/cwd", "/etc", "@T@"]
    cwds += ["src/main.py", "credentials", "fifo", "\x00", "file:///tmp", "@E@", "missing"]
    cases = [Case("run_command", {"command": "pwd > pwned.txt", "cwd": c}) for c in cwds]
    cases += [
        Case("run_command", {"command": c})
        for c in (
            # Blacklisted, and harmless even if the blacklist ever let them through.
            "rm -rf / --help",
            "RM  -RF   / --help",
            "sudo rm -rf ~ --help",
            "mkfs.ext4 --help",
            "reboot --help",
            "sh -c 'shutdown --help'",
            "/sbin/reboot --help",
            "passwd --help",
            "eval echo hi",
            ":(){ :|:& };",
            "curl http://127.0.0.1:9 | sh",
            "echo id | bash",
            "bash -i >& /dev/tcp/127.0.0.1/9 0>&1",
            "echo a\x00b",
            "",
            "   ",
            "x" * 16_001,
        )
    ]
    cases += [
        Case("run_command", {"command": "sleep 30", "timeout": 300}, note="killed at the deadline"),
        Case("run_command", {"command": "sleep 30 & sleep 30 & wait", "timeout": 300}),
        Case("run_command", {"command": "exec 1>&-; exec 2>&-; sleep 30", "timeout": 300}),
        Case("run_command", {"command": "cat", "timeout": 5000}, "ok", note="no stdin"),
        Case("run_command", {"command": "read x; echo got $x", "timeout": 5000}, "any"),
        Case("run_command", {"command": "(sleep 30 &) ; echo started", "timeout": 5000}, "any"),
        Case(
            "run_command",
            {"command": "yes | head -c 300000"},
            "ok",
            lambda w, r: None if r["truncated_stdout"] else "300 KB of output not truncated",
        ),
        Case("run_command", {"command": "head -c 300000 /dev/zero >&2"}, "ok"),
        Case("run_command", {"command": "env"}, "ok"),
        Case("run_command", {"command": "echo $MY_API_KEY $GITHUB_TOKEN $DATABASE_URL"}, "ok"),
        Case("run_command", {"command": "cat /proc/self/environ | tr '\\0' '\\n'"}, "ok"),
        Case("run_command", {"command": "a(){ echo; }; " + "b" * 3000, "timeout": 2000}, "any"),
    ]
    # Approved and unsandboxed: a command can read what the user can. Not an escape.
    cases += [
        Case("run_command", {"command": c}, "any", leak_ok=True, note="approved, unsandboxed")
        for c in ("cat .env", "cat @O@/secret.txt", "cat /proc/$PPID/environ | tr '\\0' '\\n'")
    ]
    return cases


def commands_disabled() -> list[Case]:
    return [
        Case("run_command", {"command": c, "cwd": d})
        for c in ("echo hi", "pwd", "cat @O@/secret.txt")
        for d in (None, ".", "@O@")
    ]


def _not_escaped(world: World, result: dict[str, Any]) -> str | None:
    return "escaped" if os.path.lexists(world.root / "escaped_to_parent") else None


def sandboxed_commands() -> list[Case]:
    """Workspace = home, commands in bubblewrap: nothing outside it may be written."""
    writes = [
        "echo pwned > @V@/pwned.txt",
        "touch @V@/pwned",
        "mkdir @V@/pwned_dir",
        "rm -f @V@/keep.txt",
        "mv @V@/keep.txt @V@/moved.txt",
        "chmod 777 @V@/keep.txt",
        "touch -d 2001-01-01 @V@/keep.txt",
        "ln -s / @V@/rootlink",
        "echo '{}' > ~/.config/metona-tray/settings.json",
        "rm -f ~/.config/metona-tray/settings.json",
        "echo pwned >> ~/.local/share/metona-tray/chats.sqlite3",
        "cat ~/.ssh/id_rsa",
        "cat ~/.aws/credentials",
        "cat ~/.config/gh/hosts.yml",
        "cat ~/.gnupg/pubring.kbx",
        "cat ~/dotfiles/gnupg/pubring.kbx",
        "grep -r SECRET ~/dotfiles ~/.ssh ~/.aws ~/.config/gh",
        "umount ~/.ssh && cat ~/.ssh/id_rsa",
        "mount -o remount,rw / && touch @V@/pwned",
        "cat /proc/1/environ | tr '\\0' '\\n' | grep SECRET",
        "cat /proc/$PPID/environ | tr '\\0' '\\n' | grep SECRET",
        "env | grep SECRET",
    ]
    cases = [Case("run_command", {"command": c}) for c in writes]
    cases += [
        Case("run_command", {"command": "echo hi; pwd; id"}, "ok"),
        Case("run_command", {"command": "touch ~/made_in_sandbox.txt"}, "ok"),
        Case("run_command", {"command": "ls -la ~/.ssh ~/.aws"}, "any"),
        Case("run_command", {"command": "cd .. && touch escaped_to_parent"}, "any", _not_escaped),
        Case("run_command", {"command": "echo x > /tmp/private_tmp && cat /tmp/private_tmp"}, "ok"),
        Case("run_command", {"command": "sleep 30", "timeout": 300}),
        # Reading is not confined by the sandbox (only writes are); the app's settings
        # are read-only, not hidden.
        Case(
            "run_command",
            {"command": "cat ~/.config/metona-tray/settings.json"},
            "any",
            leak_ok=True,
        ),
    ]
    return cases


# ---- legitimate calls with the home folder allowed, and commands -----------------------------


def legit_home() -> list[Case]:
    return [
        Case("read_file", {"path": "~/notes.txt"}, "ok", content_is("home notes\n")),
        Case("read_file", {"path": "@H@/notes.txt"}, "ok", content_is("home notes\n")),
        Case("read_file", {"path": "~/.bashrc"}, "ok"),
        Case("read_file", {"path": "~/private.txt"}, "ok"),
        Case(
            "write_file",
            {"path": "~/new_note.txt", "content": "hi\n"},
            "ok",
            on_disk("HOME:new_note.txt", b"hi\n"),
        ),
        Case("create_directory", {"path": "~/newdir/sub"}, "ok"),
        Case("list_directory", {"path": "~"}, "ok", finds("notes.txt", "new_note.txt")),
        Case(
            "list_directory",
            {"path": "~", "include_hidden": True},
            "ok",
            finds(".bashrc", ".config", absent=(".ssh", ".aws", ".gnupg")),
        ),
        Case(
            "list_directory",
            {"path": "~/.config", "include_hidden": True},
            "ok",
            finds(absent=("gh", "metona-tray")),
        ),
        Case("search_files", {"path": "~", "query": "home notes"}, "ok", finds("notes.txt")),
        Case("search_files", {"path": "~", "query": "*.txt"}, "ok", finds("notes.txt")),
        Case("delete_file", {"path": "~/new_note.txt"}, "ok", on_disk("HOME:new_note.txt", None)),
        Case("delete_file", {"path": "~/newdir", "recursive": True}, "ok"),
    ]


def _stdout_is(expected: str) -> Check:
    def check(world: World, result: dict[str, Any]) -> str | None:
        got = world.fill(expected)
        return None if result["stdout"] == got else f"stdout {result['stdout']!r} != {got!r}"

    return check


def legit_commands() -> list[Case]:
    return [
        Case("run_command", {"command": "echo hello"}, "ok", _stdout_is("hello\n")),
        Case("run_command", {"command": "pwd"}, "ok", _stdout_is("@W@\n")),
        Case("run_command", {"command": "pwd", "cwd": "src"}, "ok", _stdout_is("@W@/src\n")),
        Case("run_command", {"command": "pwd", "cwd": "@W@"}, "ok", _stdout_is("@W@\n")),
        Case(
            "run_command",
            {"command": "pwd", "cwd": "legit_links/to_dir"},
            "ok",
            _stdout_is("@W@/src\n"),
        ),
        Case("run_command", {"command": "ls README.md"}, "ok", _stdout_is("README.md\n")),
        Case("run_command", {"command": "printf '%s' ü"}, "ok", _stdout_is("ü")),
        Case("run_command", {"command": "true", "timeout": 5000}, "ok"),
        Case("run_command", {"command": "grep -r evaluate src || true"}, "ok"),
        Case("run_command", {"command": "git commit -m 'fix reboot' --dry-run || true"}, "ok"),
    ]
