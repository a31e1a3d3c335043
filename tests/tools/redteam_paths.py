"""The attack half of the red-team corpus, by class: paths spelled to escape (traversal, ~ and
$VAR, URLs, control characters, unicode tricks) and the helpers every class builds its cases
with; places a call must never touch are in ``redteam_places``. Placeholders: see ``World.fill``.

``deny`` means the call must fail; ``any`` means it may succeed (a literal name inside the
workspace, a link removed as a link) as long as nothing outside changes and nothing leaks.
"""

from __future__ import annotations

from typing import Any

from redteam_world import FILE_TOOLS, Case

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
