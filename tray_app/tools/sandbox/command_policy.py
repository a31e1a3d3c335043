"""The run_command blacklist: a speed bump, not a wall.

A shell is a programming language, so no list of forbidden words can tell a safe command from a
harmful one: ``r''m -rf /``, a script written to a file and then run, base64, a Makefile... all
get past any blacklist. The real gates are the user's approval of every command (which shows the
exact text), the environment scrubbing and time and output limits in ``shell.py``, and, when
the user turns it on, the OS sandbox (bubblewrap / sandbox-exec). This filter only stops the
obvious disasters (the classic ``BLOCKED_COMMANDS`` list, pipe-to-shell
and reverse-shell patterns) before the user is even asked.

To avoid refusing ordinary work (``grep -r evaluate .``, ``git commit -m "fix reboot"``), words
such as ``eval``, ``reboot`` or ``mkfs`` are matched as *command names* — the first word of each
simple command, after wrappers such as ``sudo``/``env``/``nohup`` and inside ``sh -c '...'`` —
never as substrings. Only patterns that are dangerous wherever they appear (a fork bomb,
``/dev/tcp/``, a pipe into a shell) are matched on the whole, whitespace- and case-normalised text.
"""

from __future__ import annotations

import re
import shlex

from tray_app.tool_errors import Params, ToolErrorCode, clean_params

MAX_COMMAND_CHARS = 16_000

SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox"}
    | {"powershell", "powershell.exe", "pwsh", "pwsh.exe", "cmd", "cmd.exe"}
)

# Command names refused wherever they are the command being run (design doc BLOCKED_COMMANDS).
BLOCKED_NAMES: dict[str, str] = {
    **dict.fromkeys(("mkfs", "wipefs", "shred", "diskpart", "bcdedit"), "destroys disks or data"),
    **dict.fromkeys(("shutdown", "reboot", "poweroff", "halt"), "shuts down the machine"),
    **dict.fromkeys(
        ("useradd", "usermod", "userdel", "adduser", "deluser", "passwd", "chpasswd", "visudo"),
        "changes user accounts",
    ),
    "eval": "runs dynamically built code",
}

# Wrappers whose arguments start another command; the value is the set of their options that
# take a separate argument (``sudo -u root reboot``).
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset({"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-s", "-E", "-a"}),
    **dict.fromkeys(
        ("nohup", "time", "command", "builtin", "exec", "setsid", "then", "do", "else", "busybox"),
        frozenset[str](),
    ),
    **dict.fromkeys(("if", "elif", "while", "until", "!", "{", "watch", "chroot"), frozenset()),
}

SEPARATORS = frozenset({";", "&", "&&", "|", "||", "|&", "(", ")", ";;", "{", "}", "$", "`"})

PROTECTED_TARGETS = frozenset(
    {"", "/", "~", "$home", "${home}", "c:", "c:\\"}
    | {f"/{top}" for top in ("bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64")}
    | {f"/{top}" for top in ("opt", "proc", "root", "sbin", "srv", "sys", "usr", "var", "mnt")}
    | {"c:\\windows", "c:\\program files", "c:\\users"}
)


class Blocked(str):
    """Why a command is refused: the English sentence (a ``str``, for the model, the log and
    the approval), with the ``tool_errors`` code and params the card and terminal translate."""

    code: ToolErrorCode
    params: Params

    def __new__(cls, text: str, code: ToolErrorCode, **params: object) -> Blocked:
        made = super().__new__(cls, text)
        made.code = code
        made.params = clean_params(params)
        return made


_WHOLE_TEXT_PATTERNS: list[tuple[re.Pattern[str], str, ToolErrorCode]] = [
    (
        re.compile(r"([^\s(){};|&]+)\(\)\{[^}]*\1\|\1&"),
        "looks like a fork bomb",
        "command_refused_fork_bomb",
    ),
    (
        re.compile(r"/dev/(tcp|udp)/"),
        "looks like a reverse shell (/dev/tcp)",
        "command_refused_reverse_shell",
    ),
    (
        re.compile(r"\b(ba|z|k|da)?sh\s+-i\b[^|;]*[<>]&"),
        "looks like a reverse shell (interactive shell on a socket)",
        "command_refused_reverse_shell",
    ),
    (
        re.compile(
            r"(\||>|<|\|&)\s*(sudo\s+)?(\S*/)?(" + "|".join(map(re.escape, SHELLS)) + r")"
            r"(?=$|[\s;&|)])"
        ),
        "pipes or redirects into a shell (like `curl ... | sh`)",
        "command_refused_pipe_to_shell",
    ),
    (
        re.compile(r"(^|[\s;&|(])(" + "|".join(map(re.escape, SHELLS)) + r")\s+<\("),
        "feeds downloaded or generated code to a shell",
        "command_refused_feeds_shell",
    ),
    (
        re.compile(r"(^|[\s;&|(])exec\s+\d*[<>]"),
        "redirects the shell's own output (exec >)",
        "command_refused_exec_redirect",
    ),
    (
        re.compile(r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk)"),
        "writes to a raw disk device",
        "command_refused_raw_disk",
    ),
    (re.compile(r"--no-preserve-root"), "deletes the root directory", "command_refused_root"),
]

#: The code of each ``BLOCKED_NAMES`` reason.
_NAME_CODES: dict[str, ToolErrorCode] = {
    "destroys disks or data": "command_refused_destroys",
    "shuts down the machine": "command_refused_shutdown",
    "changes user accounts": "command_refused_accounts",
    "runs dynamically built code": "command_refused_eval",
}


def check_command(command: str) -> Blocked | None:
    """Why ``command`` is refused, or None when the blacklist lets it through to the user."""
    if "\x00" in command:
        return Blocked("refused: the command contains a NUL byte", "command_refused_nul")
    if len(command) > MAX_COMMAND_CHARS:
        return Blocked(
            f"refused: the command is longer than {MAX_COMMAND_CHARS} characters",
            "command_refused_too_long",
            limit=MAX_COMMAND_CHARS,
        )
    if not command.strip():
        return Blocked("refused: the command is empty", "command_refused_empty")
    reason = _check(command, depth=0)
    if reason is None:
        return None
    return Blocked(f"refused by the command blacklist: {reason}", reason.code, **reason.params)


def _check(command: str, *, depth: int) -> Blocked | None:
    text = " ".join(command.lower().split())
    compact = re.sub(r"\s+", "", command.lower())
    for pattern, why, code in _WHOLE_TEXT_PATTERNS:
        if pattern.search(compact if "fork" in why else text):
            return Blocked(f"it {why}", code)
    for words in _simple_commands(command.lower()):
        reason = _check_simple(words, depth=depth)
        if reason:
            return reason
    return None


def _tokens(command: str) -> list[str]:
    """Shell-like words and operators; never fails (unbalanced quotes fall back to spaces)."""
    # Newlines and backticks end a command just like ';' does.
    prepared = command.replace("\r", "\n").replace("\n", " ; ").replace("`", " ` ")
    lexer = shlex.shlex(prepared, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return re.findall(r"[;&|()<>]+|[^\s;&|()<>]+", prepared)


def _simple_commands(command: str) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for token in _tokens(command):
        if token in SEPARATORS or set(token) <= set(";&|()"):
            commands.append([])
        elif token.startswith("$(") or token.startswith("<("):
            commands.append([token[2:]] if len(token) > 2 else [])
        else:
            commands[-1].append(token)
    return [words for words in commands if words]


def _command_words(words: list[str]) -> tuple[str, list[str]] | None:
    """The command name (basename) and its arguments, skipping assignments and wrappers."""
    i = 0
    while i < len(words):
        word = words[i]
        if re.fullmatch(r"[a-z_][a-z0-9_]*=.*", word) or word in ("<", ">", ">>"):
            i += 1 if "=" in word else 2
            continue
        name = re.split(r"[/\\]", word)[-1]
        if name in WRAPPERS:
            takes_value = WRAPPERS[name]
            i += 1
            while i < len(words) and (
                words[i].startswith("-")
                or re.fullmatch(r"[0-9.]+[smhd]?", words[i])
                or re.fullmatch(r"[a-z_][a-z0-9_]*=.*", words[i])
            ):
                i += 2 if words[i] in takes_value else 1
            continue
        return name, words[i + 1 :]
    return None


def _check_simple(words: list[str], *, depth: int) -> Blocked | None:
    found = _command_words(words)
    if found is None:
        return None
    name, args = found
    base = name[:-4] if name.endswith(".exe") else name
    if base in BLOCKED_NAMES or base.startswith("mkfs."):
        why = BLOCKED_NAMES.get(base, "destroys disks or data")
        return Blocked(f"`{base}` {why}", _NAME_CODES[why], name=base)
    if base in ("rm", "rd", "rmdir", "del", "erase", "remove-item"):
        return _check_rm(base, args)
    if base in ("nc", "ncat", "netcat") and any(
        a in ("-e", "-c") or a.startswith("--sh") for a in args
    ):
        return Blocked(f"`{base} -e` looks like a reverse shell", "command_refused_reverse_shell")
    if base == "socat" and any(re.match(r"(exec|system):", a) for a in args):
        return Blocked("`socat exec:` looks like a reverse shell", "command_refused_reverse_shell")
    if base == "dd" and any(arg.startswith(("if=", "of=")) for arg in args):
        return Blocked("`dd` can overwrite disks", "command_refused_dd")
    if base == "chmod" and any(re.fullmatch(r"0?[0-7]?777|a\+rwx|ugo\+rwx", a) for a in args):
        return Blocked("`chmod 777` makes files writable by everyone", "command_refused_chmod")
    if base == "chown" and any(re.match(r"root([:.]|$)", a) for a in args):
        return Blocked("`chown root` hands files to the administrator", "command_refused_chown")
    if base == "crontab" and args != ["-l"]:
        return Blocked(
            "`crontab` changes scheduled jobs (only `crontab -l` is allowed)",
            "command_refused_crontab",
        )
    if base == "systemctl" and any(a in ("enable", "disable", "mask") for a in args):
        return Blocked(
            "`systemctl enable/disable` changes system services", "command_refused_systemctl"
        )
    if base == "format" and any(re.fullmatch(r"[a-z]:\\?", a) for a in args):
        return Blocked("`format` erases a drive", "command_refused_format")
    if base in SHELLS and depth < 3:
        return _check_shell_script(args, depth=depth)
    return None


def _check_rm(name: str, args: list[str]) -> Blocked | None:
    recursive = any(a in ("--recursive", "/s") or re.fullmatch(r"-[a-z]*r[a-z]*", a) for a in args)
    if not recursive:
        return None
    for arg in args:
        if arg.startswith("-") and arg != "-":
            continue
        target = re.sub(r"/+", "/", arg.replace('"', "").replace("'", ""))
        target = re.sub(r"(/\*|/\.|/|\\\*|\\)+$", "", target)
        if target in PROTECTED_TARGETS:
            return Blocked(
                f"a recursive `{name}` of {arg} would delete the system or the home folder",
                "command_refused_recursive_delete",
                name=name,
                target=arg,
            )
    return None


def _check_shell_script(args: list[str], *, depth: int) -> Blocked | None:
    """``sh -c 'script'``: check the script as a command of its own."""
    for i, arg in enumerate(args):
        if re.fullmatch(r"-[a-z]*c[a-z]*|/c|/k|-command", arg) and i + 1 < len(args):
            return _check(args[i + 1], depth=depth + 1)
    return None
