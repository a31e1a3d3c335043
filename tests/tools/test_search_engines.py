"""search_files with ripgrep and with the Python search: the same answers on one hostile tree,
and rg is never handed a file the policy refuses (the real bundled rg runs in these tests)."""

from __future__ import annotations

import codecs
import os
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.waiting import eventually
from tests.tools.attack_helpers import ok
from tray_app.tools.search import search_lines, search_rg, search_run
from tray_app.tools.toolbox import Toolbox

RG = search_rg.rg_binary()
needs_rg = pytest.mark.skipif(RG is None, reason="the ripgrep package is not installed")

BIDI = "\u202e"  # right-to-left override


def build_tree(work: Path, outside: Path) -> dict[str, Path]:
    """Text in many encodings and scripts, plus every kind of file search must not open."""
    (work / "docs" / "深い" / "更深").mkdir(parents=True)
    (work / "docs" / "深い" / "笔记.md").write_text(
        "第一行 Hello 世界\n搜索 NEEDLE 在这里 🙂\nİstanbul and KELVIN \u212a\nΑΣ ας σ\n",
        encoding="utf-8",
    )
    (work / "docs" / "深い" / "更深" / "emoji.txt").write_text(
        "🙂🙃 needle 🙂\n" + f"{BIDI}needle{BIDI} reversed\n" + "a.b*c (x+)+$ [z]\n" * 3,
        encoding="utf-8",
    )
    (work / "crlf.txt").write_bytes(b"one needle\r\ntwo NEEDLE\r\nthree\r\n")
    (work / "utf16.txt").write_bytes(codecs.BOM_UTF16_LE + "utf16 needle 针\n".encode("utf-16-le"))
    (work / "utf16be.txt").write_bytes(codecs.BOM_UTF16_BE + "be NEEDLE here\n".encode("utf-16-be"))
    (work / "utf32.txt").write_bytes(codecs.BOM_UTF32_LE + "utf32 needle 🙂\n".encode("utf-32-le"))
    (work / "utf32be.txt").write_bytes(codecs.BOM_UTF32_BE + "Needle 32\n".encode("utf-32-be"))
    (work / "bom8.txt").write_bytes(codecs.BOM_UTF8 + b"needle after a BOM\n")
    (work / "latin1.txt").write_bytes("caf\xe9 needle na\xefve\n".encode("latin-1"))
    (work / "binary.bin").write_bytes(b"\x00\x01needle\x00" * 10)
    (work / "late_nul.txt").write_bytes(b"x" * 9000 + b"\nneedle late\n\x00tail needle\n")
    (work / "long.txt").write_text("w" * 5000 + " needle " + "v" * 5000 + "\n")
    (work / "many.txt").write_text("needle line\n" * 40)
    (work / "🙂 表情").mkdir()
    (work / "🙂 表情" / f"{BIDI}txt.exe 名 🙃.md").write_text(f"名前 needle 🙃 {BIDI}Needle\n")
    (work / "🙂 表情" / "huge_line.txt").write_text("针" * 160_000 + " NEEDLE 🙂 tail\n")
    (work / "big.txt").write_bytes(b"needle\n" * 80_000)  # > 500 KB: not searched
    (work / "empty.txt").write_bytes(b"")
    for i in range(30):
        (work / "docs" / f"note{i:02}.txt").write_text(f"note {i} needle{i}\nplain\n")
    refused = {
        "secret": work / ".env",
        "key": work / "docs" / "id_rsa",
        "pem": work / "server.pem",
        "hidden": work / ".hidden" / "notes.txt",
        "blocked": work / "blocked" / "inside.txt",
        "hardlink": work / "hard.txt",
        "symlink": work / "link.txt",
        "outside": outside / "target.txt",
    }
    refused["hidden"].parent.mkdir()
    refused["blocked"].parent.mkdir()
    for path in (refused["secret"], refused["key"], refused["pem"], refused["hidden"]):
        path.write_text("needle secret\n")
    refused["blocked"].write_text("needle blocked\n")
    refused["outside"].write_text("needle outside\n")
    refused["hardlink"].write_text("needle hard\n")
    os.link(refused["hardlink"], outside / "hard-other-name.txt")
    refused["symlink"].symlink_to(refused["outside"])
    return refused


QUERIES: list[dict[str, Any]] = [
    {"query": "needle"},
    {"query": "NEEDLE", "case_sensitive": True},
    {"query": "Needle", "case_sensitive": True},
    {"query": "needle", "max_results": 7},
    {"query": "needle", "max_results": 200},
    {"query": "搜索 needle"},
    {"query": "世界"},
    {"query": "🙂"},
    {"query": "🙂 needle"},
    {"query": f"{BIDI}needle"},
    {"query": "a.b*c"},
    {"query": "(x+)+$"},
    {"query": "[z]"},
    {"query": "i"},
    {"query": "i\u0307stanbul"},
    {"query": "İSTANBUL"},
    {"query": "kelvin k"},
    {"query": "ς"},
    {"query": "σ", "case_sensitive": True},
    {"query": "café"},
    {"query": "针"},
    {"query": "note 1"},
    {"query": "needle\r", "case_sensitive": True},
    {"query": "needle\nplain"},
    {"query": "\ufffd"},
    {"query": "tail needle"},
    {"query": "nothing like this anywhere"},
    {"query": "needle", "file_extensions": [".md", ".txt"]},
    {"query": "note", "search_type": "both"},
    {"query": "*.txt", "search_type": "filename"},
]


def run(box: Toolbox, query: dict[str, Any]) -> dict[str, Any]:
    return ok(box.execute("search_files", {"path": ".", "search_type": "content", **query}))


@needs_rg
@pytest.mark.parametrize("query", QUERIES, ids=lambda q: repr(q["query"])[:30])
def test_ripgrep_and_python_give_the_same_answer(
    box: Toolbox, layout: Any, policy_for: Any, query: dict[str, Any], monkeypatch: Any
) -> None:
    build_tree(layout.work, layout.outside)
    box.policy = policy_for(blocked_dirs=[layout.work / "blocked"])
    with_rg = run(box, query)
    monkeypatch.setattr(search_rg, "rg_binary", lambda: None)
    with_python = run(box, query)
    assert with_rg == with_python


@needs_rg
def test_the_tree_really_exercises_both_engines(
    box: Toolbox, layout: Any, policy_for: Any, monkeypatch: Any
) -> None:
    """Guard for the comparison: rg ran, it ruled files out, and the tricky files matched."""
    build_tree(layout.work, layout.outside)
    box.policy = policy_for(blocked_dirs=[layout.work / "blocked"])
    calls: list[tuple[list[str], set[str] | None]] = []
    real = search_rg.may_match

    def spy(rg: str, pattern: str, files: list[str], **kw: Any) -> set[str] | None:
        answer = real(rg, pattern, files, **kw)
        calls.append((list(files), answer))
        return answer

    monkeypatch.setattr(search_rg, "may_match", spy)
    result = run(box, {"query": "needle", "max_results": 200})
    assert calls and all(answer is not None for _, answer in calls)
    given = {f for files, _ in calls for f in files}
    ruled_out = given - {f for _, answer in calls for f in answer or ()}
    assert str(layout.work / "empty.txt") in ruled_out
    names = {Path(r["path"]).name for r in result["results"]}
    assert {"utf16.txt", "utf32.txt", "bom8.txt", "latin1.txt", "late_nul.txt"} <= names
    assert {"utf16be.txt", "utf32be.txt", "crlf.txt", "笔记.md", "emoji.txt"} <= names
    assert {f"{BIDI}txt.exe 名 🙃.md", "huge_line.txt"} <= names
    assert "binary.bin" not in names and "big.txt" not in names
    late = next(r for r in result["results"] if r["path"].endswith("late_nul.txt"))
    assert [m["line"] for m in late["matches"]] == [2, 3]
    turkish = run(box, {"query": "i\u0307stanbul"})
    assert [Path(r["path"]).name for r in turkish["results"]] == ["笔记.md"]


@needs_rg
def test_rg_is_never_given_a_file_the_policy_refuses(
    box: Toolbox, layout: Any, policy_for: Any, monkeypatch: Any
) -> None:
    refused = build_tree(layout.work, layout.outside)
    box.policy = policy_for(blocked_dirs=[layout.work / "blocked"])
    given: list[str] = []
    real = search_rg.may_match

    def spy(rg: str, pattern: str, files: list[str], **kw: Any) -> set[str] | None:
        given.extend(files)
        return real(rg, pattern, files, **kw)

    monkeypatch.setattr(search_rg, "may_match", spy)
    for query in ("needle", "secret", "blocked", "outside", "hard"):
        result = run(box, {"query": query, "max_results": 200})
        assert all("secret" not in m["text"] for r in result["results"] for m in r["matches"])
    assert given
    for path in refused.values():
        assert str(path) not in given
    for path in given:
        info = os.lstat(path)
        assert stat.S_ISREG(info.st_mode) and info.st_nlink == 1
        assert Path(path).is_relative_to(layout.work)
        assert not any(part.startswith(".") for part in Path(path).relative_to(layout.work).parts)


@needs_rg
def test_content_search_with_many_batches_keeps_the_walk_order_and_caps(
    box: Toolbox, layout: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(search_run, "RG_BATCH", 7)
    for i in range(60):
        body = "needle\n" if i % 3 == 0 else "hay\n"
        (layout.work / f"f{i:03}.txt").write_text(body)
    batches: list[int] = []
    real = search_rg.may_match

    def spy(rg: str, pattern: str, files: list[str], **kw: Any) -> set[str] | None:
        batches.append(len(files))
        return real(rg, pattern, files, **kw)

    monkeypatch.setattr(search_rg, "may_match", spy)
    with_rg = run(box, {"query": "needle", "max_results": 11})
    assert batches[:4] == [7, 7, 7, 7]  # several runs, replayed in walk order
    monkeypatch.setattr(search_rg, "rg_binary", lambda: None)
    with_python = run(box, {"query": "needle", "max_results": 11})
    assert with_rg == with_python
    assert with_rg["total_matches"] == 11 and with_rg["truncated"] is True
    assert [Path(r["path"]).name for r in with_rg["results"]][:2] == ["f000.txt", "f003.txt"]


def test_huge_rg_output_is_cut_off_and_the_search_falls_back(tmp_path: Path) -> None:
    """A broken rg that never stops printing is killed at the cap; None means "use Python"."""
    fake = tmp_path / "rg"
    fake.write_text(f"#!{sys.executable}\nimport sys\nwhile True: sys.stdout.write('x' * 65536)\n")
    fake.chmod(0o755)
    files = [str(tmp_path / "a.txt")]
    answer = search_rg.may_match(str(fake), "x", files, deadline=time.monotonic() + 60)
    assert answer is None


def test_a_hung_rg_is_killed_on_cancel(tmp_path: Path) -> None:
    fake = tmp_path / "rg"
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(600)\n")
    fake.chmod(0o755)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    answer = search_rg.may_match(
        str(fake), "x", [str(tmp_path / "a")], deadline=time.monotonic() + 600, cancel=cancel
    )
    assert answer is None and cancel.is_set()


@pytest.mark.parametrize("printed", ["/etc/passwd\\n", "{a}\\n{a}\\n", "{a}"])
def test_rg_naming_a_file_it_was_not_given_is_not_trusted(tmp_path: Path, printed: str) -> None:
    """Not given, named twice, or a name cut off: no answer, and nothing handed on."""
    given = str(tmp_path / "a.txt")
    fake = tmp_path / "rg"
    text = printed.replace("{a}", given)
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.write({text!r})\n")
    fake.chmod(0o755)
    handed: list[str] = []
    answer = search_rg.may_match(
        str(fake), "x", [given], deadline=time.monotonic() + 60, on_named=handed.append
    )
    assert answer is None
    assert handed in ([], [given])  # never a file it was not given


def test_files_rg_names_are_matched_once_while_it_runs_and_the_rest_by_the_replay(
    box: Toolbox, layout: Any, monkeypatch: Any
) -> None:
    """Each file rg names is read once (in rg's thread, up to EARLY_FILES of a batch); a
    search whose first files fill the page reads few in vain; same answer as Python alone."""
    for i in range(200):
        (layout.work / f"f{i:03}.txt").write_text("针 needle 🙂\nhay\n" if i % 2 else "hay\n")
    (layout.work / "line\nbreak.txt").write_text("a needle in a name with a line break\n")
    reads: list[tuple[str, str]] = []
    real = search_run.file_matches

    def spy(path: Path, *args: Any) -> Any:
        reads.append((path.name, threading.current_thread().name))
        return real(path, *args)

    monkeypatch.setattr(search_run, "file_matches", spy)
    given: list[str] = []
    real_may = search_rg.may_match

    def may(rg: str, pattern: str, files: list[str], **kw: Any) -> set[str] | None:
        given.extend(files)
        return real_may(rg, pattern, files, **kw)

    monkeypatch.setattr(search_rg, "may_match", may)
    whole = run(box, {"query": "needle", "max_results": 200})
    assert whole["total_files"] == whole["total_matches"] == 101
    names = [name for name, _ in reads]
    assert len(names) == len(set(names)) == 101  # only the matching files, each once
    assert sum(thread == "metona-rg" for _, thread in reads) == search_run.EARLY_FILES
    assert "line\nbreak.txt" in names and not any("\n" in path for path in given)
    reads.clear()
    page = run(box, {"query": "needle", "max_results": 5})
    assert page["total_matches"] == 5 and page["truncated"] is True
    assert len(reads) <= 5 + 5  # rg's thread stops at 5 lines; the replay needs the first 5
    monkeypatch.setattr(search_rg, "rg_binary", lambda: None)
    assert run(box, {"query": "needle", "max_results": 200}) == whole
    assert run(box, {"query": "needle", "max_results": 5}) == page


def test_queries_rg_cannot_take_go_to_python() -> None:
    assert search_rg.rg_pattern("a\nb", False) is None
    assert search_rg.rg_pattern("\ufffd", True) is None
    assert search_rg.rg_pattern("\ud800", True) is None
    assert search_rg.rg_pattern("a.b", True) == "a\\x{2e}b"
    assert search_rg.rg_pattern("İx", False) == "(?i)(?:i|\\x{130})\\x{307}?x"


def test_line_matching_over_the_whole_text_equals_line_by_line() -> None:
    """The fast whole-text match gives what lowering and searching each line gives."""
    import random

    rnd = random.Random(7)
    alphabet = ["a", "A", "b", "Σ", "σ", "ς", "İ", "i", "\u0307", "K", "\u212a", "k", "\n", "\r"]
    alphabet += [" ", "针", "🙂", "\u202e", "x", "X", "ß", "ẞ"]
    for _ in range(3000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60)))
        query = "".join(rnd.choice(alphabet[:-8]) for _ in range(rnd.randint(1, 3)))
        for case_sensitive in (False, True):
            needle = query if case_sensitive else query.lower()
            expected = (
                []
                if "\n" in needle
                else search_lines._line_matches_by_line(text, needle, case_sensitive)
            )
            assert search_lines.line_matches(text, query, case_sensitive) == expected, (text, query)


@needs_rg
def test_rg_runs_still_going_when_the_cap_is_met_are_ended(
    box: Toolbox, layout: Any, monkeypatch: Any
) -> None:
    """Batches run ahead of the replay; once max_results is met, no rg process is left."""
    import subprocess

    monkeypatch.setattr(search_run, "RG_BATCH", 5)
    for i in range(80):
        (layout.work / f"f{i:03}.txt").write_text("needle\n" * 3 + "hay\n" * 20_000)
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kw: Any) -> subprocess.Popen[bytes]:
        proc = real_popen(*args, **kw)
        started.append(proc)
        return proc

    monkeypatch.setattr(search_rg.subprocess, "Popen", popen)
    result = run(box, {"query": "needle", "max_results": 4})
    assert result["total_matches"] == 4 and result["truncated"] is True
    assert started
    eventually(lambda: all(p.poll() is not None for p in started), 30, "every rg child ended")
