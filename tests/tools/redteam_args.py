"""Red-team attacks on arguments and contents: walks next to links and secrets, wrong types
and huge numbers, special files and sizes, secrets by encoding and spelling, hard links, .git.
"""

from __future__ import annotations

from typing import Any

from redteam_paths import PWNED, each, every_tool, reads
from redteam_world import SENSITIVE_IN_WORK, Case

# ---- walks: search and list next to links, loops and secrets --------------------------------

GLOBS = [
    "*",
    "**/*",
    "**",
    "*/*/*",
    "[",
    "[!a]*",
    "[a-",
    "*[",
    "]",
    "?" * 255,
    "*" * 500,
    "*a" * 250,
    "a*" * 250,
    "[" * 500,
    "*?" * 250,
    "(a+)+$",
    ".*",
    "^SECRET",
    "\\d+",
    "SECRET.*",
    "(?i)secret",
    "*.pem",
    "*.env*",
    ".env",
    "id_rsa",
    "*secret*",
    "*credentials*",
    "hard_out*",
    "/",
    "../*",
    "*/../*",
]
CONTENT_PROBES = [
    "SECRET",
    "secret",
    "SECRET-",
    "value=",
    "TOKEN=",
    "hard ",
    "top secret",
    "evil twin",
    "BEGIN OPENSSH",
    "aws_secret",
    "oauth_token",
    "diary",
    "the name is the secret",
    "a" * 500,
    "(.*)*",
    "\x00",
    "\n",
    " ",
]


def walks() -> list[Case]:
    cases: list[Case] = []
    for query in GLOBS:
        args = {"path": ".", "query": query, "search_type": "filename", "max_results": 200}
        cases.append(Case("search_files", args, "ok"))
    for query in CONTENT_PROBES:
        args = {"path": ".", "query": query, "search_type": "both", "max_results": 200}
        cases.append(Case("search_files", args, "any"))
    cases += [
        Case("search_files", {"path": ".", "query": q, "case_sensitive": True}, "ok")
        for q in ("SECRET", "value=", "hard ")
    ]
    for root in (".", "mixed", "loops", "legit_links", "d", "@W@", ".git", "wide"):
        cases.append(Case("search_files", {"path": root, "query": "e", "max_results": 200}, "ok"))
        for hidden in (False, True):
            args = {"path": root, "recursive": True, "max_depth": 10, "include_hidden": hidden}
            cases.append(Case("list_directory", args, "ok"))
    cases += [
        Case("search_files", {"path": ".", "query": "SECRET", "file_extensions": exts}, "ok")
        for exts in ([".env"], [".pem", ".key"], ["env", "txt", "json", "csv"], ".production")
    ]
    cases += [
        Case("list_directory", {"path": ".", "filter_extension": ext, "include_hidden": True}, "ok")
        for ext in (".env", ".pem", "*.txt", "local", ".production")
    ]
    for root in ("loops/up", "loops/here", "loops/up/loops/up/loops"):
        cases.append(Case("list_directory", {"path": root, "recursive": True}, "ok"))
        cases.append(Case("search_files", {"path": root, "query": "secret"}, "ok"))
    for root in ("link_out_dir", "link_home", "chain1", "/", "~", "@O@", "link_ssh", "@E@"):
        cases.append(Case("search_files", {"path": root, "query": "SECRET"}))
        cases.append(Case("list_directory", {"path": root, "recursive": True}))
    return cases


# ---- argument tricks: wrong types, huge and negative numbers, odd JSON ---------------------

BAD_ARGS: list[tuple[str, Any]] = [
    ("read_file", None),
    ("read_file", ""),
    ("read_file", "null"),
    ("read_file", "[]"),
    ("read_file", "{"),
    ("read_file", "[" * 100_000),
    ("read_file", '{"path": ' + "[" * 50_000 + "]" * 50_000 + "}"),
    ("read_file", '{"path": "README.md", "start_line": NaN}'),
    ("read_file", {"path": "README.md", "start_line": float("nan")}),
    ("run_command", {"command": "echo hi", "timeout": float("inf")}),
    ("run_command", '{"command": "echo hi", "timeout": 1e999}'),
    ("read_file", 5),
    ("read_file", ["path", "README.md"]),
    ("read_file", b"README.md"),
    ("read_file", {"path": 123}),
    ("read_file", {"path": None}),
    ("read_file", {"path": ["README.md"]}),
    ("read_file", {"path": {"a": 1}}),
    ("read_file", {"path": True}),
    ("read_file", {"path": 1.5}),
    ("read_file", {"path": "x" * 5000}),
    ("read_file", {"path": "README.md", "encoding": "utf-16"}),
    ("read_file", {"path": "README.md", "encoding": "hex"}),
    ("read_file", {"path": "README.md", "encoding": ""}),
    ("read_file", {"path": "README.md", "start_line": 10**18}),
    ("read_file", {"path": "README.md", "start_line": 3, "end_line": 2}),
    ("read_file", {"path": "README.md", "start_line": "abc"}),
    ("read_file", {"path": "binary.bin", "encoding": "base64", "start_line": 1}),
    ("write_file", {"path": "w.txt", "content": 5}),
    ("write_file", {"path": "w.txt", "content": None}),
    ("write_file", {"path": "w.txt", "content": True}),  # an object or a list is written as JSON
    ("write_file", {"path": "w.txt", "content": "\ud800"}),
    ("write_file", {"path": "w.txt", "content": "a", "encoding": "hex"}),
    ("write_file", {"path": "w.txt", "content": "a", "encoding": "base64"}),
    ("write_file", {"path": "w.txt", "content": "日本", "encoding": "latin1"}),
    ("write_file", {"path": "w.txt"}),
    ("write_file", {"path": "new/", "content": "a"}),
    ("write_file", {"path": "x" * 300, "content": "a"}),
    ("list_directory", {"path": ".", "recursive": "maybe"}),
    ("list_directory", {"path": ".", "recursive": 2}),
    ("list_directory", {"path": ".", "max_depth": "abc"}),
    ("list_directory", {"path": ".", "filter_extension": 5}),
    ("search_files", {"path": ".", "query": ""}),
    ("search_files", {"path": ".", "query": "a" * 501}),
    ("search_files", {"path": ".", "query": None}),
    ("search_files", {"path": ".", "query": "a", "search_type": "regex"}),
    ("search_files", {"path": ".", "query": "a", "search_type": ""}),
    ("search_files", {"path": ".", "query": "a", "max_results": "1e3"}),
    ("search_files", {"path": ".", "query": "a", "max_results": None}),
    ("search_files", {"path": ".", "query": "a", "file_extensions": {}}),
    ("search_files", {"path": ".", "query": "a", "case_sensitive": "perhaps"}),
    ("delete_file", {"path": "trash_me.txt", "recursive": "perhaps"}),
    ("READ_FILE", {"path": "README.md"}),
    ("read_file ", {"path": "README.md"}),
    ("", {"path": "README.md"}),
    ("../read_file", {"path": "README.md"}),
    ("execute", {"path": "README.md"}),
    ("__init__", {}),
    ("delete_file\x00", {"path": "trash_me.txt"}),
    (["read_file"], {"path": "README.md"}),
    ({"read_file": 1}, {"path": "README.md"}),
    (None, {"path": "README.md"}),
    (5, {"path": "README.md"}),
    ("read_file", '{"path": "README.md", "start_line": ' + "9" * 5000 + "}"),
    ("read_file", {1: "README.md"}),
    ("read_file", {"path": "../outside/secret.txt", "allowed_dirs": ["/"], "sandbox": False}),
    ("read_file", {"path": "@O@/secret.txt", "policy": {"allowed_dirs": ["/"]}}),
    ("write_file", {"path": "big.txt", "content": "a" * (5 * 1024 * 1024 + 1)}),
    ("write_file", {"path": "big.txt", "content": "é" * (5 * 1024 * 1024 // 2 + 1)}),
]
# Mended or ignored, not refused: any outcome is fine as long as nothing breaks.
ODD_BUT_FINE: list[tuple[str, Any]] = [
    # JSON Infinity and 1e999 are clamped like other huge numbers (they used to raise).
    ("read_file", '{"path": "README.md", "start_line": Infinity}'),
    ("read_file", '{"path": "README.md", "start_line": 1e999}'),
    ("read_file", '{"path": "README.md", "end_line": -Infinity}'),
    ("read_file", {"path": "README.md", "start_line": float("inf")}),
    ("read_file", {"path": "README.md", "end_line": float("-inf")}),
    ("list_directory", {"path": ".", "max_depth": float("inf")}),
    ("list_directory", '{"path": ".", "recursive": true, "max_depth": Infinity}'),
    ("search_files", {"path": ".", "query": "a", "max_results": float("inf")}),
    ("search_files", '{"path": ".", "query": "a", "max_results": -1e999}'),
    ("read_file", [("path", "README.md")]),
    ("read_file", '{"path": "README.md"}'),
    ("read_file", {"path": "README.md", "start_line": 0, "end_line": -5}),
    ("read_file", {"path": "README.md", "start_line": -1}),
    ("read_file", {"path": "README.md", "encoding": "BASE64"}),
    ("read_file", {"path": "README.md", "encoding": "Latin-1"}),
    ("read_file", {"path": "README.md", "start_line": 1.9}),
    ("read_file", {"path": "README.md", "unknown": "ignored"}),
    ("read_file", {"path": "./" * 2000 + "README.md"}),
    ("list_directory", {"path": ".", "max_depth": -1, "recursive": True}),
    ("list_directory", {"path": ".", "max_depth": 0, "recursive": True}),
    ("list_directory", {"path": ".", "max_depth": 10**400, "recursive": True}),
    ("list_directory", {"path": ".", "max_depth": "3", "recursive": "true"}),
    ("list_directory", {"path": ".", "max_depth": 3.7, "recursive": 1}),
    ("list_directory", {"path": ".", "filter_extension": "*.py"}),
    ("list_directory", {"path": ".", "filter_extension": ""}),
    ("search_files", {"path": ".", "query": "a", "max_results": -5}),
    ("search_files", {"path": ".", "query": "a", "max_results": 0}),
    ("search_files", {"path": ".", "query": "a", "max_results": 10**12}),
    ("search_files", {"path": ".", "query": "a", "search_type": "FILENAME"}),
    ("search_files", {"path": ".", "query": "a", "file_extensions": "*.ts"}),
    ("search_files", {"path": ".", "query": "a", "file_extensions": ["ts", 5, None]}),
    ("search_files", {"path": ".", "query": "a", "file_extensions": "ts;js"}),
    ("search_files", {"path": ".", "query": "a", "file_extensions": [""]}),
    ("write_file", {"path": "nul.txt", "content": "a\x00b"}),
    ("write_file", {"path": "a/" * 100 + "f.txt", "content": "deep"}),
    ("run_command", {"command": "echo hi", "timeout": 10**100}),
    ("run_command", {"command": "echo hi", "timeout": -5}),
    ("run_command", {"command": "echo hi", "cwd": ""}),
    # no encoding means "detect"; writes take any text codec
    ("read_file", {"path": "README.md", "encoding": None}),
    ("write_file", {"path": "w.txt", "content": "a", "encoding": "latin1"}),
]


def arguments() -> list[Case]:
    cases = [Case(tool, args) for tool, args in BAD_ARGS]
    return cases + [Case(tool, args, "any") for tool, args in ODD_BUT_FINE]


# ---- special files, sizes, deep and wide trees ----------------------------------------------

SPECIAL = ["fifo", "sock", "dev_zero", "link_fifo", "link_dev_zero"]


def specials() -> list[Case]:
    names = SPECIAL  # dev_zero exists only where mknod works; refused either way
    # get_file_info only lstat()s: describing a pipe, socket or device is fine (never opened).
    cases = [
        Case(c.tool, c.args, "any" if c.tool == "get_file_info" else c.expect)
        for c in each(names)
        if c.tool != "delete_file"
    ]
    cases += each(["fifo/x", "sock/x", "README.md/x", "README.md/x/y"])
    for encoding in ("utf-8", "latin1", "base64"):
        cases += reads(["big.sparse", "big_text.log"], encoding=encoding)
    cases += reads(["big.sparse", "big_text.log"], start_line=1, end_line=2)
    cases += reads(["binary.bin"])
    cases += [
        Case("write_file", {"path": "empty_dir", "content": PWNED}),
        Case("write_file", {"path": "src", "content": PWNED}),
        Case("create_directory", {"path": "README.md"}),
        Case("list_directory", {"path": "big.sparse"}),
        Case("search_files", {"path": "big.sparse", "query": "a"}, "ok"),
        Case("search_files", {"path": "big_text.log", "query": "0123"}, "ok"),
        Case("read_file", {"path": "binary.bin", "encoding": "base64"}, "ok"),
        Case("search_files", {"path": "d", "query": "bottom"}, "ok"),
        Case("list_directory", {"path": "d", "recursive": True, "max_depth": 10}, "ok"),
        Case(
            "list_directory",
            {"path": "wide"},
            "ok",
            lambda w, r: None if r["truncated"] else "620 entries were not reported as truncated",
        ),
        Case(
            "search_files",
            {"path": "wide", "query": "w", "search_type": "content", "max_results": 200},
            "ok",
            lambda w, r: None if not r["results"] else "hard-linked files were searched",
        ),
        Case("delete_file", {"path": "wide", "recursive": True}, note="holds hard links"),
    ]
    cases += [Case("delete_file", {"path": name}, "any") for name in names]
    return cases


# ---- secrets by encoding, case and spelling -------------------------------------------------

SECRET_SPELLINGS = [
    *SENSITIVE_IN_WORK,
    ".ENV",
    ".Env",
    "secrets/ID_RSA",
    "CREDS.PEM",
    ".env.",
    ".env/",
    ".env/.",
    "./.env",
    "src/../.env",
    "odd/../.env",
    "config/../.env",
    "secrets/../secrets/id_rsa",
    "credentials",
    "credentials/",
    "link_env",
    "hard_out.txt",
    "chain1",
    "link_out_file",
    "@O@/secret.txt",
    "@O@/.env",
]
# Ordinary folder names that hold secrets: listing and searching them works, the secrets inside
# stay hidden; a recursive delete is refused.
HOLDING_SECRETS = ["secrets", "secrets/", "mixed_secret", "nested", "nested/deep"]


LINK_MOVERS = ("delete_file",)  # it acts on a link itself, never on its target


def _target(args: Any) -> Any:
    return args.get("path", args.get("source")) if isinstance(args, dict) else None


def encodings() -> list[Case]:
    cases: list[Case] = []
    for raw in SECRET_SPELLINGS:
        for encoding in ("utf-8", "latin1", "base64", "BASE64", "latin-1", "utf8"):
            cases.append(Case("read_file", {"path": raw, "encoding": encoding}))
        cases.append(Case("read_file", {"path": raw, "start_line": 1, "end_line": 1}))
    links = ("link_env", "chain1", "link_out_file")  # deleting a link removes only the link
    cases += [
        Case(
            c.tool,
            c.args,
            "any" if c.tool in LINK_MOVERS and _target(c.args) in links else "deny",
        )
        for c in each(SECRET_SPELLINGS)
    ]
    expect = {
        "list_directory": "ok",
        "search_files": "ok",
        "directory_tree": "ok",
        "get_file_info": "ok",  # the folder's own facts; the secrets inside stay hidden
        "create_directory": "any",
    }
    for raw in HOLDING_SECRETS:
        cases += [Case(c.tool, c.args, expect.get(c.tool, "deny")) for c in every_tool(raw)]
    return cases


# ---- hard links and .git --------------------------------------------------------------------


def hardlinks_and_git() -> list[Case]:
    cases = each(["hard_out.txt", "hard_a.txt", "hard_b.txt"])
    cases += [c for c in every_tool("link_hard") if c.tool != "delete_file"]
    cases += [Case("delete_file", {"path": "link_hard"}, "ok")]  # only the link goes
    git = [
        ".git/hooks/pre-commit",
        ".git/config",
        ".git/HEAD",
        ".git/newdir/x",
        ".GIT/hooks/pre-commit",
        ".Git/config",
        "src/../.git/config",
        "./.git//hooks/post-checkout",
        "link_git/hooks/post-checkout",
        "link_git/config",
        "sub/.git/hooks/pre-commit",
    ]
    cases += [Case("write_file", {"path": raw, "content": PWNED}) for raw in git]
    cases += [Case("create_directory", {"path": raw}) for raw in (".git/x", ".git", "a/.git")]
    cases += [Case("delete_file", {"path": raw, "recursive": True}) for raw in [*git[1:4], ".git"]]
    cases += [Case("read_file", {"path": ".git/config"}, "ok")]
    cases += [Case("list_directory", {"path": ".", "include_hidden": True}, "ok")]
    return cases
