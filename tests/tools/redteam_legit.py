"""The legitimate half of the red-team corpus: calls a user expects to work, each checked.

Every case here expects success; ``check`` then looks at the result or at the disk.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from redteam_world import LONG_NAME, NFC, NFD, ORDINARY, Case, World

Check = Callable[[World, dict[str, Any]], str | None]


def content_is(expected: str) -> Check:
    def check(world: World, result: dict[str, Any]) -> str | None:
        got = result.get("content")
        return None if got == expected else f"content {got!r} is not {expected!r}"

    return check


def on_disk(rel: str, expected: bytes | None) -> Check:
    """``expected`` None: the path must be gone; else the file must hold exactly that."""

    def check(world: World, result: dict[str, Any]) -> str | None:
        path = world.home / rel[5:] if rel.startswith("HOME:") else world.work / rel
        if expected is None:
            return f"{path} still exists" if os.path.lexists(path) else None
        if not path.is_file() or path.read_bytes() != expected:
            return f"{path} does not hold what was written"
        return None

    return check


def finds(*names: str, absent: tuple[str, ...] = ()) -> Check:
    """Search/list results name every one of ``names`` and none of ``absent``."""

    def check(world: World, result: dict[str, Any]) -> str | None:
        if "results" in result:
            seen = {Path(r["path"]).name for r in result["results"]}
        else:
            seen = {Path(e["name"]).name for e in result["entries"]}
        missing = [n for n in names if n not in seen]
        present = [n for n in absent if n in seen]
        if missing or present:
            return f"missing {missing}, should be hidden {present}; saw {sorted(seen)[:40]}"
        return None

    return check


def link_removed(rel: str) -> Check:
    def check(world: World, result: dict[str, Any]) -> str | None:
        link = world.work / rel
        if os.path.lexists(link):
            return f"{link} was not removed"
        return None

    return check


READ_SPELLINGS = {
    "./README.md": "README.md",
    "@W@/README.md": "README.md",
    "src//main.py": "src/main.py",
    "src/./main.py": "src/main.py",
    "src/../src/main.py": "src/main.py",
    "@W@/src/../README.md": "README.md",
    "@W@//src///main.py": "src/main.py",
    "./src/components/keyboard.ts": "src/components/keyboard.ts",
    "legit_links/to_file": "legit_links/target.txt",
    "legit_links/relative": "legit_links/target.txt",
    "legit_links/to_dir/main.py": "src/main.py",
    "link_self_ws/README.md": "README.md",
    "loops/up/README.md": "README.md",
    "loops/here/../README.md": "README.md",
    "new_missing/../README.md": "README.md",
    "./~/literal.txt": "~/literal.txt",
    "odd/./-rf": "odd/-rf",
}


def legit_reads() -> list[Case]:
    cases = [
        Case("read_file", {"path": rel}, "ok", content_is(text))
        for rel, text in ORDINARY.items()
        if not rel.startswith("~/")  # "~/" is the home folder; the literal folder is "./~"
    ]
    cases += [
        Case("read_file", {"path": raw}, "ok", content_is(ORDINARY[rel]))
        for raw, rel in READ_SPELLINGS.items()
    ]
    deep = "/".join(["d"] * 60) + "/bottom.txt"
    main = ORDINARY["src/main.py"]
    cases += [
        Case("read_file", {"path": deep}, "ok", content_is("the bottom\n")),
        Case(
            "read_file",
            {"path": "src/main.py", "start_line": 2, "end_line": 2},
            "ok",
            content_is(main.splitlines(keepends=True)[1]),
        ),
        Case(
            "read_file",
            {"path": "src/util.py", "encoding": "latin1"},
            "ok",
            content_is(ORDINARY["src/util.py"].encode().decode("latin-1")),
        ),
        Case(
            "read_file",
            {"path": "binary.bin", "encoding": "base64"},
            "ok",
            content_is(base64.b64encode(bytes(range(256)) * 4).decode()),
        ),
        Case(
            "read_file",
            {"path": "src/main.py", "encoding": "base64"},
            "ok",
            content_is(base64.b64encode(main.encode()).decode()),
        ),
        Case("read_file", {"path": f"odd/{NFC}.txt"}, "ok", content_is("NFC form\n")),
        Case("read_file", {"path": f"odd/{NFD}.txt"}, "ok", content_is("NFD form\n")),
        Case("read_file", {"path": f"odd/{LONG_NAME}"}, "ok", content_is("long name\n")),
        Case(
            "read_file",
            {"path": "src/main.py", "start_line": 1, "end_line": 10**6},
            "ok",
            content_is(main),
        ),
        Case(
            "read_file",
            {"path": "long.txt"},
            "ok",
            lambda w, r: (
                None
                if r["truncated"] and r["lines"] == 600 and r["line_range"] == [1, 500]
                else f"600 lines read as {r['line_range']}, truncated={r['truncated']}"
            ),
        ),
        Case(
            "read_file",
            {"path": "long.txt", "start_line": 501},
            "ok",
            content_is("".join(f"line {i}\n" for i in range(501, 601))),
        ),
        Case("read_file", {"path": "empty.txt"}, "ok", content_is("")),
        Case("read_file", {"path": "crlf.txt"}, "ok", content_is("one\r\ntwo\r\n")),
    ]
    return cases


def legit_walks() -> list[Case]:
    odd = [
        "with space.txt",
        "hash#tag.txt",
        "100%.txt",
        "a..b.txt",
        "-rf",
        LONG_NAME,
        f"{NFC}.txt",
        f"{NFD}.txt",
        "new\nline.txt",
        "star*.txt",
        "[brackets].txt",
    ]
    return [
        Case(
            "list_directory",
            {"path": "."},
            "ok",
            finds("README.md", "src", "odd", absent=(".env", "credentials", "creds.pem")),
        ),
        Case(
            "list_directory",
            {"path": ".", "include_hidden": True},
            "ok",
            finds(
                ".env.sample",
                ".env.template",
                ".git",
                absent=(".env", ".netrc", ".git-credentials", ".pypirc", ".envrc"),
            ),
        ),
        Case("list_directory", {"path": "odd"}, "ok", finds(*odd)),
        Case(
            "list_directory",
            {"path": "src", "recursive": True},
            "ok",
            finds("main.py", "keyboard.ts", "App.tsx"),
        ),
        Case(
            "list_directory",
            {"path": ".", "recursive": True, "filter_extension": ".ts"},
            "ok",
            finds("keyboard.ts", absent=("App.tsx", "main.py")),
        ),
        Case(
            "list_directory",
            {"path": "src", "recursive": True, "filter_extension": "ts"},
            "ok",
            finds("keyboard.ts"),
        ),
        Case(
            "list_directory",
            {"path": "config", "include_hidden": True},
            "ok",
            finds(".env.example"),
        ),
        Case("list_directory", {"path": "legit_links/to_dir"}, "ok", finds("main.py")),
        Case("list_directory", {"path": "$HOME"}, "ok", finds("notes.txt")),
        Case("list_directory", {"path": "%USERPROFILE%"}, "ok", finds("notes.txt")),
        Case("list_directory", {"path": "./~"}, "ok", finds("literal.txt")),
        Case("list_directory", {"path": "@W@/"}, "ok", finds("README.md")),
        Case(
            "search_files",
            {"path": ".", "query": "*.ts", "search_type": "filename"},
            "ok",
            finds("keyboard.ts", absent=("App.tsx",)),
        ),
        Case(
            "search_files",
            {"path": ".", "query": "**/*.tsx", "search_type": "filename"},
            "ok",
            finds("App.tsx"),
        ),
        Case("search_files", {"path": ".", "query": "keyboard"}, "ok", finds("keyboard.ts")),
        Case(
            "search_files",
            {"path": ".", "query": "forgot_password.html"},
            "ok",
            finds("forgot_password.html"),
        ),
        Case("search_files", {"path": ".", "query": "pem_utils"}, "ok", finds("pem_utils.py")),
        # Search skips dot-files, like the reference tools; a file root works.
        Case(
            "search_files",
            {"path": "config/.env.example", "query": "changeme"},
            "ok",
            finds(".env.example"),
        ),
        Case(
            "search_files",
            {"path": ".", "query": "*.md", "search_type": "filename"},
            "ok",
            finds("README.md", "日本語.md", "--help.md"),
        ),
        Case(
            "search_files",
            {"path": ".", "query": "def main(", "search_type": "content"},
            "ok",
            finds("main.py"),
        ),
        Case(
            "search_files",
            {"path": ".", "query": "QWERTY", "search_type": "content"},
            "ok",
            finds("keyboard.ts"),
        ),
        Case(
            "search_files",
            {"path": ".", "query": "import", "file_extensions": [".py"]},
            "ok",
            finds("util.py"),
        ),
        Case("search_files", {"path": "src/main.py", "query": "hello"}, "ok", finds("main.py")),
        Case("search_files", {"path": "odd", "query": "star*"}, "ok", finds("star*.txt")),
        Case("search_files", {"path": "odd", "query": NFD}, "ok", finds(f"{NFD}.txt")),
        *[
            Case(
                "search_files",
                {"path": "src", "query": q, "search_type": "content"},
                "ok",
                finds(f),
            )
            for q, f in (
                ("a.b*c", "main.py"),
                ("(x)", "main.py"),
                ("[1]", "main.py"),
                ("$HOME", "main.py"),
                ("{}", "main.py"),
                ("foo|bar", "main.py"),
                ("\\d+", "util.py"),
                ("C++", "util.py"),
                ("ü🚀 %d", "util.py"),
                ("re.compile(r'", "util.py"),
            )
        ],
        Case("search_files", {"path": "docs", "query": "日本語"}, "ok", finds("日本語.md")),
        Case(
            "search_files",
            {"path": ".", "query": "qwerty", "case_sensitive": True},
            "ok",
            finds("keyboard.ts"),
        ),
    ]


FIVE_MB = "a" * (5 * 1024 * 1024)


def legit_writes() -> list[Case]:
    writes = {
        "new/dir/file.txt": "nested parents\n",
        "src/main.py": "print('rewritten')\n",
        "odd/new name with space.txt": "spaces\n",
        "日本/新しい.txt": "unicode path\n",
        "odd/-new-dash.txt": "dash\n",
        "odd/100% new#1.txt": "percent and hash\n",
        "notes/keyboard.ts": "export {};\n",
        "config/.env.example": "API_KEY=\n",
        "$HOME/new.txt": "literal dollar folder\n",
        "./~/new.txt": "literal tilde folder\n",
        "odd/a..b.new": "dots\n",
        "legit_links/to_dir/added.py": "via a link inside\n",
        "unicode.txt": "ü🚀 \x00 end\n",
        "exactly_5mb.txt": FIVE_MB,
    }
    cases = [
        Case(
            "write_file",
            {"path": rel, "content": text},
            "ok",
            on_disk(rel.replace("legit_links/to_dir", "src"), text.encode()),
        )
        for rel, text in writes.items()
    ]
    cases += [
        Case(
            "write_file",
            {"path": "src/util.py", "content": "x = 1\n"},
            "ok",
            lambda w, r: None if r["created"] is False else "an overwrite said created",
        ),
        Case(
            "write_file",
            {"path": "dangling_in", "content": "through a link\n"},
            "ok",
            on_disk("made_through_link.txt", b"through a link\n"),
        ),
        Case(
            "create_directory",
            {"path": "a/b/c"},
            "ok",
            lambda w, r: None if (w.work / "a/b/c").is_dir() and r["created"] else "not made",
        ),
        Case(
            "create_directory",
            {"path": "src"},
            "ok",
            lambda w, r: None if r["created"] is False else "an existing folder said created",
        ),
        Case("create_directory", {"path": "odd dir/with space"}, "ok"),
        Case("create_directory", {"path": "new/..hidden"}, "ok"),
        Case("delete_file", {"path": "trash_me.txt"}, "ok", on_disk("trash_me.txt", None)),
        Case("delete_file", {"path": "empty_dir"}, "ok", on_disk("empty_dir", None)),
        Case(
            "delete_file", {"path": "full_dir", "recursive": True}, "ok", on_disk("full_dir", None)
        ),
        Case("delete_file", {"path": "odd/-rf"}, "ok", on_disk("odd/-rf", None)),
        Case("delete_file", {"path": "odd/hash#tag.txt"}, "ok", on_disk("odd/hash#tag.txt", None)),
        Case(
            "delete_file", {"path": "legit_links/to_dir"}, "ok", link_removed("legit_links/to_dir")
        ),
        Case("delete_file", {"path": "link_out_file"}, "ok", link_removed("link_out_file")),
        Case("delete_file", {"path": "mixed", "recursive": True}, "ok", on_disk("mixed", None)),
        Case("delete_file", {"path": "d", "recursive": True}, "ok", on_disk("d", None)),
        Case("delete_file", {"path": "a", "recursive": True}, "ok", on_disk("a", None)),
    ]
    return cases


LEGIT = {
    "legit_reads": ("work", legit_reads),
    "legit_walks": ("work", legit_walks),
    "legit_writes": ("work", legit_writes),
}
