"""What the sandbox refuses by name: secret-looking files, system and credential folders, and
paths that are unsafe on Windows. Plain data and string logic, so every rule is testable on any
OS; ``sandbox.SandboxPolicy`` applies them.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
from collections.abc import Iterable, Sequence

from tray_app.base.errors import SandboxViolation
from tray_app.tool_errors import ToolErrorCode
from tray_app.tools.sandbox.path_parts import fold

MAX_PATH_CHARS = 4096

SENSITIVE_PATTERNS: tuple[str, ...] = (
    # the secret names
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_ed25519*",
    "id_ecdsa*",
    "credentials",
    "credentials.*",
    ".git-credentials",
    "password",
    "password.*",
    "passwords.*",
    ".netrc",
    ".pypirc",
    # the same kind of file, not in the first list
    "id_dsa*",
    "*.p12",
    "*.pfx",
    ".pgpass",
    ".envrc",
    # tokens and keystores that tools write next to a project
    ".npmrc",
    "*.tfstate",
    "*.tfstate.backup",
    "*.jks",
    ".htpasswd",
    # keychains and keyrings copied anywhere (macOS, GNOME, KWallet)
    "*.keychain",
    "*.keychain-db",
    "*.keyring",
    "*.kwl",
    # browsers' stores of saved passwords, cookies and the keys that open them
    "login data",
    "login data for account",
    "web data",
    "local state",
    "logins.json",
    "logins-backup.json",
    "signons.sqlite",
    "key3.db",
    "key4.db",
    "cookies.sqlite",
    "*.binarycookies",
    # cloud command-line tools' credential folders and token files, copied anywhere
    ".aws",
    ".azure",
    "access_tokens.db",
    "application_default_credentials.json",
    "msal_token_cache.*",
    "accesstokens.json",
    "service_principal_entries.json",
)
# Names that are secrets only inside a certain folder (``config`` alone is ordinary); the
# folder may be a glob (a browser profile's "Profile 2").
SENSITIVE_PAIRS: tuple[tuple[str, str], ...] = (
    (".kube", "config"),
    (".docker", "config.json"),
    (".config", "gcloud"),
    ("gh", "hosts.yml"),
    ("share", "keyrings"),
    ("default", "cookies"),
    ("network", "cookies"),
    ("profile *", "cookies"),
)
_EXACT_PAIRS = frozenset(pair for pair in SENSITIVE_PAIRS if "*" not in pair[0])
_GLOB_PAIRS = tuple(pair for pair in SENSITIVE_PAIRS if "*" in pair[0])
SENSITIVE_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template"})

POSIX_SYSTEM_DIRS = ("/etc", "/sys", "/proc", "/dev", "/boot", "/root")
WINDOWS_SYSTEM_DIRS = (
    r"C:\Windows",
    r"C:\Program Files",
    r"C:\Program Files (x86)",
    r"C:\ProgramData",
)
# Credential stores below the home folder.
HOME_SECRET_DIRS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".password-store",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".local/share/keyrings",
    ".local/share/python_keyring",
    "Library/Keychains",
)

# Files that make a program run later without asking: writing them always asks, with a warning
# that names the risk, and so does putting a folder where it would hold them (move_file of a
# folder, create_directory: ``persistence_code(folder=True)``). Paths below the home folder,
# as components; ``*`` = any name.
PERSISTENCE_HOME: tuple[tuple[tuple[str, ...], str], ...] = (
    ((".profile",), "login"),
    ((".bash_profile",), "login"),
    ((".bash_login",), "login"),
    ((".zprofile",), "login"),
    ((".zlogin",), "login"),
    ((".xprofile",), "login"),
    ((".xsessionrc",), "login"),
    ((".bashrc",), "shell"),
    ((".zshrc",), "shell"),
    ((".zshenv",), "shell"),
    ((".config", "fish", "config.fish"), "shell"),
    ((".config", "autostart", "*"), "login"),
    ((".config", "systemd", "user", "*"), "login"),
    (("Library", "LaunchAgents", "*"), "login"),
    (
        ("AppData", "Roaming", "Microsoft", "Windows", "Start Menu", "Programs", "Startup", "*"),
        "login",
    ),
)
# Anywhere: the last components of the path.
PERSISTENCE_ANYWHERE: tuple[tuple[tuple[str, ...], str], ...] = (
    ((".vscode", "tasks.json"), "vscode"),
    ((".vscode", "settings.json"), "vscode"),
    ((".git", "hooks", "*"), "git_hook"),
)
PERSISTENCE_RISKS = {
    "login": "runs at login",
    "shell": "runs in every new terminal shell",
    "vscode": "runs when the folder is opened in VS Code",
    "git_hook": "runs on git commands in this repository",
}

URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://|^file:", re.IGNORECASE)
CONTROL_CHAR = re.compile(r"[\x00-\x1f\x7f]")
WINDOWS_RESERVED = re.compile(
    r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$", re.IGNORECASE
)
WINDOWS_BAD_CHARS = frozenset('<>"|?*')


def windows_path_problem(raw: str) -> str | None:
    """Why ``raw`` is unsafe as a Windows path, or None. Pure string logic, testable anywhere."""
    text = raw.replace("/", "\\")
    if text.startswith(("\\\\?\\", "\\\\.\\", "\\??\\")):
        return "device and extended-length paths (\\\\?\\, \\\\.\\) are not allowed"
    if text.startswith("\\\\"):
        return "network (UNC) paths are not allowed"
    drive = re.match(r"^([A-Za-z]):(.*)$", text, re.DOTALL)
    if drive:
        text = drive.group(2)
        if not text.startswith("\\"):
            return "drive-relative paths such as C:folder are not allowed; use C:\\folder"
    for part in text.split("\\"):
        if part in ("", ".", ".."):
            continue
        if ":" in part:
            return f"{part!r} names an alternate data stream (a ':' in a file name)"
        if part != part.rstrip(" ."):
            return f"{part!r} ends with a dot or a space, which Windows silently drops"
        if any(ch in WINDOWS_BAD_CHARS for ch in part):
            return f"{part!r} contains a character Windows does not allow in names"
        stem = part.split(".", 1)[0].rstrip(" ")
        if WINDOWS_RESERVED.match(stem):
            return f"{part!r} is a reserved device name on Windows"
    return None


#: The code of a refusal by the kind of folder that blocks it (``_add_blocked``'s labels).
BLOCKED_CODES: dict[str, ToolErrorCode] = {
    "the system folder": "path_in_system_folder",
    "the credential folder": "path_in_credential_folder",
    "the blocked folder": "path_in_blocked_folder",
    "the app's own folder": "path_in_app_folder",
}


def raw_path_problem(raw: object) -> SandboxViolation | None:
    """What is wrong with the raw text of a path before it is resolved (not text, empty, too
    long, control characters, not a file name, a URL, unsafe on Windows), or None."""
    if not isinstance(raw, str):
        return SandboxViolation("the path must be a string", code="path_not_text")
    if not raw.strip():
        return SandboxViolation("the path is empty; give a file or folder path", code="path_empty")
    if len(raw) > MAX_PATH_CHARS:
        return SandboxViolation(
            f"the path is longer than {MAX_PATH_CHARS} characters",
            code="path_too_long",
            limit=MAX_PATH_CHARS,
        )
    if CONTROL_CHAR.search(raw):
        return SandboxViolation(
            f"the path {raw!r} contains a control character (such as NUL or a newline)",
            code="path_control_char",
            path=raw,
        )
    try:
        os.fsencode(raw)
    except UnicodeError:
        return SandboxViolation(
            f"the path {raw!r} contains characters that cannot be part of a file name",
            code="path_bad_chars",
            path=raw,
        )
    if URL_SCHEME.match(raw):
        return SandboxViolation(
            f"{raw!r} is a URL; the file tools take local paths only",
            code="path_is_url",
            path=raw,
        )
    if os.name == "nt":
        problem = windows_path_problem(raw)
        if problem:
            return SandboxViolation(
                f"the path {raw!r} is refused: {problem}",
                code="path_windows_refused",
                path=raw,
                problem=problem,
            )
    return None


def _plain(text: str) -> bool:
    return not any(c in text for c in "*?[")


#: ``SENSITIVE_PATTERNS`` sorted by shape for names already folded, so a name costs a set
#: lookup and two string tests, not a glob per pattern (listings and recursive deletes ask
#: for every entry): plain names, ``*.ext`` suffixes, ``name*`` prefixes, and any other glob.
_SECRET_LITERALS = frozenset(p for p in SENSITIVE_PATTERNS if _plain(p))
_SECRET_SUFFIXES = tuple(p[1:] for p in SENSITIVE_PATTERNS if p[:1] == "*" and _plain(p[1:]))
_SECRET_PREFIXES = tuple(p[:-1] for p in SENSITIVE_PATTERNS if p[-1:] == "*" and _plain(p[:-1]))
_OTHER_GLOBS = [
    p
    for p in SENSITIVE_PATTERNS
    if not _plain(p) and p[1:] not in _SECRET_SUFFIXES and p[:-1] not in _SECRET_PREFIXES
]
_SECRET_GLOBS = re.compile("|".join(fnmatch.translate(p) for p in _OTHER_GLOBS) or r"(?!)")


def is_secret_name(folded: str) -> bool:
    """``is_sensitive_name`` for a name already folded (``path_parts.fold``)."""
    if folded in SENSITIVE_TEMPLATES:
        return False
    return (
        folded in _SECRET_LITERALS
        or folded.endswith(_SECRET_SUFFIXES)
        or folded.startswith(_SECRET_PREFIXES)
        or _SECRET_GLOBS.match(folded) is not None
    )


def is_sensitive_name(name: str) -> bool:
    """True for names such as ``.env``, ``id_rsa`` or ``server.pem`` (case-insensitive)."""
    return is_secret_name(fold(name))


def is_secret_pair(parts: Sequence[str]) -> bool:
    """A folder and a name inside it that together hold credentials (``.kube/config``)."""
    folded = [fold(p) for p in parts]
    for folder, name in itertools.pairwise(folded):
        if (folder, name) in _EXACT_PAIRS:
            return True
        if any(name == n and fnmatch.fnmatchcase(folder, f) for f, n in _GLOB_PAIRS):
            return True
    return False


def name_problem(parts: Iterable[str], raw: str) -> SandboxViolation | None:
    """Why a path with these components is refused by name (a secret file), or None."""
    parts = list(parts)
    if is_secret_pair(parts):
        return SandboxViolation(
            f"{raw!r} refers to a file or folder that holds credentials by where it is "
            "(.kube/config, .docker/config.json, .config/gcloud, a browser profile's Cookies); "
            "access to it is not allowed",
            code="path_secret_config",
            path=raw,
        )
    for part in parts:
        if is_sensitive_name(part):
            return SandboxViolation(
                f"{raw!r} refers to {part!r}, which looks like a secret file or a folder of "
                "credentials (keys, passwords, .env, .aws, browser logins); access to it is not "
                "allowed",
                code="path_secret_name",
                path=raw,
                name=part,
            )
    return None


def persistence_code(
    parts: Sequence[str], home_tails: Iterable[Sequence[str]], *, folder: bool = False
) -> str | None:
    """The ``PERSISTENCE_RISKS`` code of a path's folded ``parts``, or None; ``home_tails``
    are its parts below each home folder it is inside. A ``folder`` put there (moved, made)
    counts when it or what it may hold is such a path: ``.vscode``, ``~/.config/autostart``,
    ``~/.config`` itself."""
    for rest in home_tails:
        for pattern, code in PERSISTENCE_HOME:
            if _match_parts(rest, pattern, anchored=True) or (
                folder and rest and _match_parts(rest, pattern[: len(rest)], anchored=True)
            ):
                return code
    for pattern, code in PERSISTENCE_ANYWHERE:
        if _match_parts(parts, pattern, anchored=False):
            return code
        if folder and any(
            _match_parts(parts, pattern[:size], anchored=False) for size in range(1, len(pattern))
        ):
            return code
    return None


def _match_parts(parts: Sequence[str], pattern: tuple[str, ...], *, anchored: bool) -> bool:
    """``parts`` is ``pattern`` (anchored) or ends with it; ``*`` matches one name."""
    if len(parts) != len(pattern) and (anchored or len(parts) < len(pattern)):
        return False
    tail = parts[len(parts) - len(pattern) :]
    return all(want == "*" or got == fold(want) for got, want in zip(tail, pattern, strict=True))
