"""Running the git CLI for the git tools, with nothing in the repository able to run code.

A repository is content the model may have written: its ``.git/config`` can name programs that
git runs on an ordinary ``status`` or ``diff`` (``core.fsmonitor``, ``diff.external``,
``diff.<driver>.textconv``, ``filter.<driver>.clean``...), and its hooks are scripts. So every
call here runs git with:

* a fixed environment: no ``GIT_*`` variable of the app's own, no system or global config
  (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL`` at an empty file or the identity-only file of
  ``git_identity``), no pager, no editor, ``GIT_TERMINAL_PROMPT=0``, no optional locks for reads;
* command-scope config (``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n``: like ``-c``, it wins over
  the repository's config, and takes any key a repository may name) for every key that runs a
  program:
  the fsmonitor, hooks (``core.hooksPath`` at an empty folder made for the call), the ssh
  command, signing, automatic gc and maintenance, and each ``filter.<driver>`` the repository's
  config names (read first, which runs nothing) emptied and made optional;
* flags that switch the rest off where a command has them (``--no-ext-diff``, ``--no-textconv``,
  ``--ignore-submodules``), literal pathspecs, and every path after ``--``;
* a time limit, capped output, and its process group killed at the end
  (``process.run_in_group``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tray_app.tools.builtin.process import RunOutcome, run_in_group

GIT_TIMEOUT_S = 20.0
GIT_OUTPUT_CAP = 1024 * 1024
#: Environment variables kept from the app's own: where programs are and what the OS needs.
_KEPT_ENV = ("PATH", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP", "HOME", "USERPROFILE")
#: Config keys that make git run a program, each set to a harmless value on every call.
_FIXED_CONFIG = (
    "core.fsmonitor=false",
    "core.sshCommand=",
    "core.pager=cat",
    "core.editor=:",
    "sequence.editor=:",
    "core.askPass=",
    "core.untrackedCache=false",
    "core.quotePath=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "gpg.program=",
    "credential.helper=",
    "diff.external=",
    "diff.ignoreSubmodules=all",
    "status.submoduleSummary=false",
    "submodule.recurse=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "protocol.allow=never",
    "color.ui=false",
    "log.showSignature=false",
    "safe.bareRepository=explicit",
)


class GitMissing(RuntimeError):
    """No git executable on PATH."""


@dataclass(frozen=True)
class GitRun:
    """One finished git run: its exit code and capped, decoded output."""

    returncode: int | None
    stdout: str
    stderr: str
    truncated: bool
    timed_out: bool
    cancelled: bool

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled

    def reason(self) -> str:
        """git's own complaint, one paragraph, for the model."""
        if self.timed_out:
            return f"git took longer than {GIT_TIMEOUT_S:g} s and was stopped"
        if self.cancelled:
            return "cancelled"
        text = (self.stderr or self.stdout).strip()
        return text[:2000] or f"git exited with code {self.returncode}"


def git_executable() -> str:
    """The git on PATH, or ``GitMissing``."""
    found = shutil.which("git")
    if found is None:
        raise GitMissing("git is not installed (or not on PATH)")
    return found


def fixed_env(*, global_config: str, read_only: bool) -> dict[str, str]:
    """The environment every git run gets, built from scratch rather than filtered."""
    env = {name: os.environ[name] for name in _KEPT_ENV if name in os.environ}
    env.update(
        LC_ALL="C",
        LANG="C",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=global_config,
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_EDITOR=":",
        GIT_ASKPASS="",
        SSH_ASKPASS="",
        GIT_LITERAL_PATHSPECS="1",
        GIT_ADVICE="0",
        GIT_PROTOCOL_FROM_USER="0",
    )
    if read_only:
        env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


class GitRunner:
    """git in one folder, made safe against that folder's repository (module docstring).

    Use as a context manager: it owns the empty hooks folder for its runs."""

    def __init__(
        self,
        cwd: Path,
        *,
        cancel: threading.Event | None = None,
        read_only: bool = True,
        global_config: str | None = None,
    ) -> None:
        self.git = git_executable()
        self.cwd = cwd
        self.cancel = cancel or threading.Event()
        self.read_only = read_only
        self.global_config = global_config or os.devnull
        self._tmp = tempfile.TemporaryDirectory(prefix="metona-git-")
        self._hooks = os.path.join(self._tmp.name, "hooks")
        os.mkdir(self._hooks)
        self._filters: list[tuple[str, str]] | None = None

    @property
    def scratch(self) -> str:
        """A private folder for this runner's files (a message, an identity), removed after."""
        return self._tmp.name

    def __enter__(self) -> GitRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()

    def _base(self) -> list[str]:
        argv = [self.git, "--no-pager"]
        if self.read_only:
            argv.append("--no-optional-locks")
        return argv

    def _overrides(self) -> list[tuple[str, str]]:
        items = [*_FIXED_CONFIG, f"core.hooksPath={self._hooks}"]
        pairs = [(key, value) for key, _, value in (item.partition("=") for item in items)]
        return pairs + self._filter_overrides()

    def _filter_overrides(self) -> list[tuple[str, str]]:
        """Each ``filter.<driver>`` the repository's config names, with no program to run."""
        if self._filters is None:
            self._filters = []  # the listing below must not recurse into itself
            listing = self._exec([self.git, "config", "--list", "--name-only", "-z"], [])
            drivers = set()
            for name in listing.stdout.split("\0") if listing.ok else ():
                lowered = name.strip().lower()
                if lowered.startswith("filter.") and lowered.count(".") >= 2:
                    drivers.add(name.strip()[len("filter.") : name.strip().rindex(".")])
            for driver in sorted(drivers):
                prefix = f"filter.{driver}"
                self._filters += [
                    (f"{prefix}.{part}", "") for part in ("clean", "smudge", "process")
                ]
                self._filters.append((f"{prefix}.required", "false"))
        return self._filters

    def run(
        self,
        args: Sequence[str],
        *,
        paths: Sequence[str] | None = None,
        exclude: Sequence[str] = (),
    ) -> GitRun:
        """``git <args> -- <paths>``, every path literal (no pathspec magic), leaving out the
        ``exclude`` paths; ``args`` are this module's callers' own flags, never a model's value
        (a value a model gave goes in ``paths`` or a file)."""
        for arg in args:
            if not arg.startswith("-") and "\n" in arg:
                raise ValueError("a git argument holds a line break")
        argv = [*self._base(), *args]
        literal = not exclude
        if paths is not None:
            if exclude:
                spec = [f":(literal){path}" for path in paths or ["."]]
                paths = spec + [f":(exclude,literal){path}" for path in exclude]
            argv += ["--", *paths]
        return self._exec(argv, self._overrides(), literal=literal)

    def _exec(
        self, argv: list[str], overrides: Sequence[tuple[str, str]], *, literal: bool = True
    ) -> GitRun:
        env = fixed_env(global_config=self.global_config, read_only=self.read_only)
        if not literal:  # the paths carry their own ``:(literal)`` magic
            env["GIT_LITERAL_PATHSPECS"] = "0"
        env["GIT_CONFIG_COUNT"] = str(len(overrides))
        for index, (key, value) in enumerate(overrides):
            env[f"GIT_CONFIG_KEY_{index}"] = key
            env[f"GIT_CONFIG_VALUE_{index}"] = value
        outcome: RunOutcome = run_in_group(
            argv,
            cwd=self.cwd,
            env=env,
            timeout=GIT_TIMEOUT_S,
            cancel=self.cancel,
            cap=GIT_OUTPUT_CAP,
        )
        return GitRun(
            returncode=outcome.returncode,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
            truncated=outcome.truncated_stdout,
            timed_out=outcome.timed_out,
            cancelled=outcome.cancelled,
        )


def identity_file(folder: str) -> str:
    """A global config holding only the user's name and email from their own global config
    (values read, nothing run), so a commit has an author without the rest of that file."""
    target = os.path.join(folder, "identity.gitconfig")
    lines = []
    try:
        git = git_executable()
    except GitMissing:
        git = ""
    for key in ("user.name", "user.email"):
        value = _global_value(git, key) if git else None
        if value and "\n" not in value:
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'\t{key.split(".")[1]} = "{escaped}"')
    with open(target, "w", encoding="utf-8") as fh:
        fh.write("[user]\n" + "\n".join(lines) + "\n" if lines else "")
    return target


def _global_value(git: str, key: str) -> str | None:
    env = {name: os.environ[name] for name in _KEPT_ENV if name in os.environ}
    env.update(GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
    if sys.platform != "win32" and "HOME" not in env:
        return None
    outcome = run_in_group(
        [git, "config", "--global", "--no-includes", "--get", key],
        cwd=Path(tempfile.gettempdir()),
        env=env,
        timeout=5.0,
        cancel=threading.Event(),
        cap=4096,
    )
    value = outcome.stdout.strip()
    return value if outcome.returncode == 0 and value else None
