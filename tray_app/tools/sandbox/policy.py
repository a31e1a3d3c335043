"""The one path resolver every tool goes through (the rules by name are in ``path_rules``,
the component arithmetic in ``path_parts``).

``SandboxPolicy.resolve(raw, access=...)`` turns what the model wrote into a real, absolute path
or raises ``SandboxViolation`` with a sentence naming the path and the reason. The order matters:

1. The raw text: NUL and other control characters (they hide the real path in the approval
   dialog), characters no file name can hold (lone surrogates), URLs, Windows
   device/UNC/stream/reserved names, sensitive names in any component.
2. A leading ``~`` is the user's home; ``$VAR`` and ``%VAR%`` are never expanded. Relative paths
   are joined to the workspace, never to the process's working directory.
3. ``realpath``: the deepest existing ancestor is resolved with symlinks followed; the part that
   does not exist yet is appended after normalisation and may not climb with ``..``. A dangling
   symlink is followed to where it points, so a new file written "through" it is checked where
   it would really land. For ``delete`` the final component is *not* followed: a symlink is
   removed as a link.
4. Checks on the real path (and, for blocked folders, on the plain normalised path too, so
   ``/proc/self/root/...`` cannot walk around ``/proc``): sensitive names on every component,
   blocked and protected folders (they always win), containment in an allowed folder by path
   components (``work_evil`` is not inside ``work``; case-folded on macOS and Windows), no
   hard-linked file, and for writes and deletes no ``.git`` component (hooks and config there
   run code; reading ``.git`` is fine). A refusal never names where a link outside the allowed
   folders leads: the names there are not the model's to learn.

Hard links: a regular file with more than one link may have other names outside the allowed
folders, and nothing cheap can find them (the allowed name proves nothing about the others).
So a regular file with ``st_nlink > 1`` is refused for every access: reading it could show a
file that lives outside, and writing or deleting it would either change that outside file or
silently split it from its other names (the undo journal could only bring back a copy). Search
skips such files, and a recursive delete that contains one is refused. Listings still show their
names. The cost: trees made of hard links (pnpm's ``node_modules``, ``git clone --local``
objects) cannot be read or deleted through the tools.

What was checked is what is used (``tools.fs.opened``): on POSIX a tool does not hand the checked
path string back to the OS. It walks from the file system's root one folder at a time with
``O_NOFOLLOW | O_DIRECTORY`` relative to the folder before, and works through the last folder's
descriptor, so a folder swapped for a symlink by another process between the check and the use
makes the call fail instead of leading outside. Done for ``read_file``, ``read_multiple_files``,
``get_file_info`` and every file search reads; writes (``write_file``, ``edit_file``, the
folders ``create_directory`` and the writers make), ``move_file`` (``rename``/``link`` between
the two opened folders) and ``delete_file`` (unlinked through the folder, or moved into a
private staging folder first because the trash only takes a path: ``tools.fs.staging``).
Folder walks (``list_directory``, ``directory_tree``, ``search_files``, a recursive delete's
check) open each folder from the walk's opened root, name by name, and list and stat through
its descriptor (``fs.fs_walk``). Known limits still open: ripgrep, when installed, is handed
path strings, but only to pick which files Python then reads through the folders (its answer
can hide a match, never show outside content); the undo journal copies a single file through
its opened folder but a folder's tree by path string. Both need another local process racing
the call (the model cannot run one without an approved ``run_command``).
Windows has no ``dir_fd``: there every tool uses the checked string as before; the closest
equivalent (handles opened with ``FILE_FLAG_OPEN_REPARSE_POINT`` and re-checked) is not built.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from tray_app.base.errors import SandboxViolation
from tray_app.tool_errors import ToolErrorCode
from tray_app.tools.sandbox.path_parts import fold, path_key, plain_abs, split_raw, unique, within
from tray_app.tools.sandbox.path_rules import (
    BLOCKED_CODES,
    HOME_SECRET_DIRS,
    MAX_PATH_CHARS,
    PERSISTENCE_RISKS,
    POSIX_SYSTEM_DIRS,
    SENSITIVE_PATTERNS,
    SENSITIVE_TEMPLATES,
    WINDOWS_SYSTEM_DIRS,
    is_secret_pair,
    is_sensitive_name,
    name_problem,
    persistence_code,
    raw_path_problem,
)

__all__ = [
    "HOME_SECRET_DIRS",
    "MAX_PATH_CHARS",
    "POSIX_SYSTEM_DIRS",
    "SENSITIVE_PATTERNS",
    "SENSITIVE_TEMPLATES",
    "WINDOWS_SYSTEM_DIRS",
    "Access",
    "SandboxPolicy",
]

log = logging.getLogger(__name__)

Access = Literal["read", "write", "delete", "list", "search", "cwd"]
_MODIFYING = frozenset({"write", "delete"})


class SandboxPolicy:
    """Where the tools may go. Cheap to build; no I/O beyond resolving the configured folders."""

    case_insensitive: bool = sys.platform in ("darwin", "win32")

    def __init__(
        self,
        *,
        allowed_dirs: Sequence[str | Path],
        workspace: str | Path | None = None,
        blocked_dirs: Sequence[str | Path] = (),
        protected_dirs: Sequence[str | Path] = (),
        run_command_enabled: bool = False,
        sandbox_enabled: bool = False,
        home: Path | None = None,
        web_allowed_hosts: Sequence[str] = (),
    ) -> None:
        #: ``host`` or ``host:port`` entries web_fetch may reach although their address is
        #: local or private (``tools.builtin.web_address``).
        self.web_allowed_hosts: tuple[str, ...] = tuple(web_allowed_hosts)
        self.home = Path(os.path.realpath(plain_abs(str(home) if home else str(Path.home()))))
        self.run_command_enabled = run_command_enabled
        self.sandbox_enabled = sandbox_enabled
        self.allowed_roots: list[Path] = unique(
            p for p in (self._configured(d) for d in allowed_dirs) if p is not None
        )
        # The app's own folders; run_command's OS sandbox keeps them read-only too.
        self.protected_dirs: list[Path] = unique(
            p for p in (self._configured(d) for d in protected_dirs) if p is not None
        )
        self._blocked: list[tuple[Path, str, tuple[str, ...]]] = []
        for folder in self._system_dirs():
            self._add_blocked(folder, "the system folder")
        homes = {self.home, Path(os.path.abspath(Path.home()))}
        for base in homes:
            for name in HOME_SECRET_DIRS:
                self._add_blocked(base / name, "the credential folder")
        for label, folders in (
            ("the blocked folder", blocked_dirs),
            ("the app's own folder", protected_dirs),
        ):
            for item in folders:
                configured = self._configured(item)
                if configured is not None:
                    self._add_blocked(configured, label)
        chosen = self._configured(workspace) if workspace is not None else None
        if chosen is None:
            usable = [r for r in self.allowed_roots if not self.is_blocked(r)]
            chosen = (usable or self.allowed_roots or [self.home])[0]
        self.workspace: Path = chosen
        if not self._inside_allowed(self.workspace):
            log.warning("workspace %s is outside the allowed folders", self.workspace)

    # ---- public checks -------------------------------------------------------------------

    def resolve(self, raw: str, *, access: Access) -> Path:
        """The real absolute path for ``raw``, or ``SandboxViolation`` saying why not."""
        self._check_raw(raw)
        joined = os.path.join(self.workspace, self._expand_home(raw))
        plain = plain_abs(joined)
        parent, name = os.path.split(joined.rstrip("/\\" if os.name == "nt" else "/"))
        if access == "delete" and name not in ("", os.curdir, os.pardir) and parent:
            # The entry itself is removed: resolve its folder, never follow the final link.
            real = self._realpath(parent, raw) / name
        else:
            real = self._realpath(joined, raw)
        if not self._inside_allowed(real):
            # Say nothing about where it leads: link targets outside are not the model's to see.
            self._check_blocked(plain, raw)
            roots = ", ".join(str(r) for r in self.allowed_roots) or "none are set"
            if real == plain:
                message = f"{self._describe(raw, plain)} is outside the allowed folders"
                code: ToolErrorCode = "path_outside"
            else:
                message = f"{raw!r} leads through a symbolic link outside the allowed folders"
                code = "path_link_outside"
            raise SandboxViolation(f"{message} ({roots})", code=code, path=raw, roots=roots)
        self._check_names(real.parts, raw)
        self._check_blocked(plain, raw)
        self._check_blocked(real, raw)
        if access in _MODIFYING:
            self._check_git(plain, real, raw)
        self._check_hard_links(real)
        return real

    def is_sensitive_name(self, name: str) -> bool:
        """True for names such as ``.env``, ``id_rsa`` or ``server.pem`` (case-insensitive)."""
        return is_sensitive_name(name)

    def is_secret_entry(self, path: Path) -> bool:
        """``is_sensitive_name`` for an entry met in a walk, with its folder (``.kube/config``)."""
        return is_sensitive_name(path.name) or is_secret_pair([path.parent.name, path.name])

    def persistence_risk(self, path: Path, *, folder: bool = False) -> dict[str, str] | None:
        """``{"code", "text"}`` when writing ``path`` makes something run later (login, VS
        Code, git), else None; with ``folder``, when a folder put at ``path`` could (its
        contents land in such a place). ``path`` is a resolved path; compared case-folded."""
        parts = path_key(Path(os.path.abspath(path)), fold_case=True)
        homes = {self.home, Path(os.path.abspath(Path.home()))}
        homes_keys = (path_key(h, fold_case=True) for h in homes)
        tails = [parts[len(h) :] for h in homes_keys if within(parts, h)]
        code = persistence_code(parts, tails, folder=folder)
        return None if code is None else {"code": code, "text": PERSISTENCE_RISKS[code]}

    def is_blocked(self, path: Path) -> bool:
        """True when ``path`` is a system, credential, user-blocked or app folder, or inside one."""
        return self._blocking(path) is not None

    def blocked_folders(self) -> list[Path]:
        """Every blocked, credential, system and app folder (plain and real forms)."""
        return [folder for folder, _, _ in self._blocked]

    def is_allowed_root_or_ancestor(self, path: Path) -> bool:
        """True for an allowed root, the home folder, the workspace, or a folder holding one."""
        key = path_key(Path(os.path.abspath(path)), fold_case=True)
        guarded = [*self.allowed_roots, self.home, self.workspace]
        return any(within(path_key(root, fold_case=True), key) for root in guarded)

    # ---- internals -----------------------------------------------------------------------

    def _configured(self, folder: str | Path) -> Path | None:
        """A configured folder as a real path; relative or empty entries mean nothing."""
        text = self._expand_home(str(folder).strip())
        if not text or not os.path.isabs(text):
            if text:
                log.warning("ignoring folder %r: not an absolute path", text)
            return None
        return Path(os.path.realpath(plain_abs(text)))

    @staticmethod
    def _system_dirs() -> list[Path]:
        if os.name != "nt":
            return [Path(d) for d in POSIX_SYSTEM_DIRS]
        found = [Path(d) for d in WINDOWS_SYSTEM_DIRS]
        for var in ("SystemRoot", "ProgramFiles", "ProgramFiles(x86)", "ProgramData"):
            value = os.environ.get(var)
            if value and os.path.isabs(value):
                found.append(Path(value))
        return found

    def _add_blocked(self, folder: Path, label: str) -> None:
        if not folder.is_absolute():
            return
        for form in {plain_abs(str(folder)), Path(os.path.realpath(folder))}:
            self._blocked.append((form, label, path_key(form, fold_case=True)))

    def _blocking(self, path: Path) -> tuple[Path, str] | None:
        key = path_key(path, fold_case=True)
        for folder, label, folder_key in self._blocked:
            if within(key, folder_key):
                return folder, label
        return None

    def _inside_allowed(self, path: Path) -> bool:
        fold_case = self.case_insensitive
        key = path_key(path, fold_case=fold_case)
        return any(within(key, path_key(r, fold_case=fold_case)) for r in self.allowed_roots)

    def _expand_home(self, raw: str) -> str:
        seps = ("/", "\\") if os.name == "nt" else ("/",)
        if raw == "~":
            return str(self.home)
        if raw.startswith(tuple("~" + s for s in seps)):
            return str(self.home) + os.sep + raw[2:]
        return raw

    @staticmethod
    def _describe(raw: str, real: Path) -> str:
        return str(real) if raw == str(real) else f"{raw!r} (resolved to {real})"

    def _check_raw(self, raw: object) -> None:
        problem = raw_path_problem(raw)
        if problem is not None:
            raise problem
        assert isinstance(raw, str)
        self._check_names(split_raw(raw), raw)

    @staticmethod
    def _check_names(parts: Iterable[str], raw: str) -> None:
        problem = name_problem(parts, raw)
        if problem is not None:
            raise problem

    def _check_blocked(self, path: Path, raw: str) -> None:
        hit = self._blocking(path)
        if hit is not None:
            folder, label = hit
            raise SandboxViolation(
                f"{self._describe(raw, path)} is inside {label} {folder}; access is not allowed",
                code=BLOCKED_CODES[label],
                path=raw,
                folder=str(folder),
            )

    def _check_git(self, plain: Path, real: Path, raw: str) -> None:
        for parts in (plain.parts, real.parts):
            if any(fold(p) == ".git" for p in parts):
                raise SandboxViolation(
                    f"{self._describe(raw, real)} is inside a .git folder; changing files there "
                    "is not allowed (hooks and config there can run code)",
                    code="path_in_git",
                    path=raw,
                )

    @staticmethod
    def _check_hard_links(real: Path) -> None:
        try:
            info = os.lstat(real)
        except OSError:
            return
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            raise SandboxViolation(
                f"{real} has {info.st_nlink} hard links; it is not used because its other "
                "names may be outside the allowed folders",
                code="path_hard_links",
                path=str(real),
                n=info.st_nlink,
            )

    def _realpath(self, path: str, raw: str) -> Path:
        """``realpath`` of the deepest existing ancestor plus the normalised missing rest."""
        head, missing = path, []
        while not os.path.lexists(head):
            parent, name = os.path.split(head)
            if parent == head:
                break
            if name:
                missing.append(name)
            head = parent
        real = os.path.realpath(head)
        if missing:
            rest = os.path.normpath(os.path.join(*reversed(missing)))
            if rest == os.pardir or rest.startswith(os.pardir + os.sep):
                raise SandboxViolation(
                    f"{raw!r} uses '..' after a part that is not an existing folder",
                    code="path_climbs",
                    path=raw,
                )
            if rest != os.curdir:
                real = os.path.join(real, rest)
            if os.pardir in missing or os.curdir in missing:
                # "missing/../existing/link" collapsed onto folders that exist: resolve again
                # (the new path has no dots left, so this recurses once).
                return self._realpath(real, raw)
        result = Path(real)
        self._check_no_links(result, raw)
        return result

    def _check_no_links(self, path: Path, raw: str) -> None:
        """After realpath no component may still be a link: one that is, is a loop."""
        for prefix in [*reversed(path.parents), path]:
            if os.path.islink(prefix):  # islink never raises
                where = f" at {prefix}" if self._inside_allowed(prefix) else ""
                raise SandboxViolation(
                    f"{raw!r} runs into a symbolic link loop{where}",
                    code="path_link_loop",
                    path=raw,
                )
