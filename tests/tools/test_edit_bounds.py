"""edit_file stays bounded on the mistakes a model makes on big files: a one-character
``old_text`` on 5 MB, a long ``old_text`` that matches nothing in a minified file, a block of
lines repeated thousands of times. Proved by work counts, by the search stopping when the call
is cancelled, and by a generous wall-clock guard on a child process (before, these took 11 s to
several minutes each)."""

from __future__ import annotations

import asyncio
import difflib
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.tools.attack_helpers import err
from tray_app.tools.builtin import edit_nearest
from tray_app.tools.builtin.edit_lines import MAX_PLACES
from tray_app.tools.builtin.edit_match import NoMatch, apply_all, find
from tray_app.tools.toolbox import CheckedCall, Toolbox

MB = 1024 * 1024


def edit(old: str, new: str) -> dict[str, str]:
    return {"old_text": old, "new_text": new}


def test_a_one_character_old_text_is_counted_up_to_the_cap(box: Toolbox, layout: Any) -> None:
    body = "Aé(中) x\n" * 450_000  # 5 MB, an "A" and a "(" on every line
    (layout.work / "big.txt").write_text(body, encoding="utf-8")
    preview = box.preview("edit_file", {"path": "big.txt", "edits": [edit("(", "[")]})
    assert preview["kind"] == "error" and preview["code"] == "edit_too_many_matches"
    assert preview["params"]["n"] == MAX_PLACES
    assert preview["params"]["lines"] == "1, 2, 3, 4, 5, …"
    message = err(box.execute("edit_file", {"path": "big.txt", "edits": [edit("A", "B")]}))
    assert f"matches more than {MAX_PLACES} places (lines 1, 2, 3, 4, 5, …)" in message


def test_up_to_the_cap_the_count_is_exact_and_overlaps_count() -> None:
    text = "x\n" * 10 + "aaaa\n" + "b\n" * MAX_PLACES
    with pytest.raises(NoMatch) as info:
        find(text, "aa", "c")
    assert info.value.code == "edit_many_matches" and info.value.params["n"] == 3
    assert info.value.params["lines"] == "11, 11, 11"
    with pytest.raises(NoMatch) as info:
        find(text, "b\n", "c")
    assert info.value.params["n"] == MAX_PLACES
    assert info.value.params["lines"] == "12, 13, 14, 15, 16, …"


@pytest.mark.parametrize("lines_asked", [2, 40])
def test_a_repeated_block_is_found_once_or_counted_whitespace_blind(lines_asked: int) -> None:
    """The block asked for, re-indented, among 200,000 lines that repeat its first lines:
    found in one pass where each line start used to compare the whole block."""
    body = "\tx = 1\n" * 200_000 + "\tx = 1\n" * (lines_asked - 1) + "\tend()  # 终\n"
    old = "x = 1\n" * (lines_asked - 1) + "end()  # 终"
    match = find(body, old, "x = 1\n" * (lines_asked - 1) + "done()")
    assert match.how == "whitespace" and match.line == 200_001
    assert body[match.start : match.end] == "\tx = 1\n" * (lines_asked - 1) + "\tend()  # 终\n"
    assert match.replacement.endswith("\tdone()\n")
    with pytest.raises(NoMatch) as info:
        find(body, "x  = 1\nx = 1", "y")  # whitespace-blind, on every line: over the cap
    assert info.value.code == "edit_too_many_matches"


def test_the_whitespace_blind_match_counts_overlapping_blocks_in_windows() -> None:
    rare = "zeta  ω"
    body = "filler\n" * 5000 + f"  {rare}\n  {rare}\n  {rare}\n" + "filler\n" * 5000 + f"{rare}\n"
    with pytest.raises(NoMatch) as info:
        find(body, f"{rare}\n\t{rare}", "q")
    assert info.value.params["n"] == 2 and info.value.params["lines"] == "5001, 5002"
    match = find(body, f"{rare}\n{rare}\n{rare}\nfiller", "q")
    assert match.line == 5001 and match.how == "whitespace"
    assert body[match.start : match.end] == f"  {rare}\n  {rare}\n  {rare}\nfiller\n"


class _Counted(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """A SequenceMatcher that records what it compared closely."""

    sizes: ClassVar[list[tuple[int, int]]] = []

    def ratio(self) -> float:
        _Counted.sizes.append((len(self.a), len(self.b)))
        return super().ratio()


class _CountedWords:
    """``edit_nearest._WORD`` that records how much text was scored."""

    def __init__(self) -> None:
        self.calls = 0
        self.chars = 0
        self.real = edit_nearest._WORD

    def findall(self, text: str) -> list[str]:
        self.calls += 1
        self.chars += len(text)
        return self.real.findall(text)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> _CountedWords:
    _Counted.sizes = []
    words = _CountedWords()
    monkeypatch.setattr(edit_nearest.difflib, "SequenceMatcher", _Counted)
    monkeypatch.setattr(edit_nearest, "_WORD", words)
    monkeypatch.setattr(edit_nearest, "SECONDS", 3600.0)  # only the size caps count here
    return words


def test_the_nearest_search_is_capped_in_size(counted: _CountedWords) -> None:
    minified = "var a=function(b){return b+1};" * 35_000  # one line of 1 MB
    long_lines = "\n".join(f"line {n} " + "word " * 300 for n in range(30_000))
    old = "function(b){ return  b+2 }; " * 180  # 5 KB that matches nothing
    for text in (minified, long_lines):
        with pytest.raises(NoMatch) as info:
            find(text, old, "")
        assert info.value.code == "edit_no_match"
    assert counted.calls <= 1 + 1 + edit_nearest.MAX_LINES + 2  # the old_text's words, each file
    assert counted.chars <= 2 * edit_nearest.SCAN_CHARS + 2 * len(old)
    assert 0 < len(_Counted.sizes) <= 2 * edit_nearest.CANDIDATES
    assert all(
        a <= edit_nearest.COMPARE_CHARS and b <= edit_nearest.COMPARE_CHARS
        for a, b in _Counted.sizes
    )


def test_the_nearest_search_stops_when_cancelled(counted: _CountedWords) -> None:
    text = "\n".join(f"value_{n} = compute({n})" for n in range(20_000))
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(NoMatch) as info:
        find(text, "value_77 = computed(77)", "", cancel=cancel)
    assert info.value.code == "edit_no_match"  # still an answer, from what was scored
    assert _Counted.sizes == []
    assert counted.calls <= 2 + 128  # the words asked for, then one slice of lines
    # Not cancelled: the same search compares and finds the line.
    with pytest.raises(NoMatch) as info:
        find(text, "value_77 = computed(77)", "")
    assert "78: value_77 = compute(77)" in info.value.params["nearest"]
    assert _Counted.sizes


def test_a_cancelled_call_stops_between_edits() -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(NoMatch) as info:
        apply_all("a\nb\n", [("a", "x"), ("b", "y")], cancel=cancel)
    assert info.value.code == "stopped"
    assert apply_all("a\nb\n", [("a", "x"), ("b", "y")])[0] == "x\ny\n"


def test_the_nearest_search_stops_at_its_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(range(0, 10_000_000, 1000))  # every look at the clock is 1000 s later
    monkeypatch.setattr(edit_nearest.time, "monotonic", lambda: float(next(clock)))
    _Counted.sizes = []
    monkeypatch.setattr(edit_nearest.difflib, "SequenceMatcher", _Counted)
    text = "\n".join(f"value_{n} = compute({n})" for n in range(20_000))
    with pytest.raises(NoMatch):
        find(text, "value_77 = computed(77)", "")
    assert _Counted.sizes == []


async def test_stopping_the_turn_cancels_the_preview(
    box: Toolbox, layout: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The preview runs in a worker thread; cancelling the task awaiting it sets the
    preview's cancel flag, which the nearest-lines search watches."""
    started, stopped = threading.Event(), threading.Event()

    def best(self: Any, lines: list[str], target: str) -> int:
        started.set()
        if self.cancel is not None and self.cancel.wait(30):
            stopped.set()
        return 0

    monkeypatch.setattr(edit_nearest._Search, "best", best)
    (layout.work / "a.txt").write_text("alpha\nbeta\n")
    checked = box.check("edit_file", {"path": "a.txt", "edits": [edit("gamma", "x")]})
    assert isinstance(checked, CheckedCall)
    task = asyncio.create_task(box.preview_async(checked))
    assert await asyncio.to_thread(started.wait, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(stopped.wait, 30)


CHILD = r"""
import random, sys
from pathlib import Path
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

root = Path(sys.argv[1])
box = Toolbox(
    SandboxPolicy(allowed_dirs=[root], workspace=root, home=root / "home"),
    registry=ToolRegistry(FILE_TOOLS),
)
random.seed(5)
MB = 1024 * 1024
words = ["alpha", "beta", "gamma(", "  ", "\t", "A", "中文", "{", "}", ";", "x"]
lines, size = [], 0
while size < 5 * MB - 1000:
    line = "    " * random.randint(0, 3) + " ".join(random.choices(words, k=random.randint(1, 9)))
    lines.append(line + "\n")
    size += len(line.encode()) + 1
files = {
    "code.py": "".join(lines),
    "min.js": "".join(random.choices("abcdefgh(){};,.= ", k=5 * MB - 1000)),
    "breaks.txt": "\n" * (5 * MB - 1000),
    "same.txt": "a\n" * (2 * MB) + "b\n",
}
for name, body in files.items():
    (root / name).write_text(body, encoding="utf-8")
noise = "".join(random.choices("klmnop qrs", k=5000))
for name in files:
    for old in ("A", "(", " ", noise[:300], noise, "alpha   beta zzz", "a\n" * 999 + "b"):
        edits = [{"old_text": old, "new_text": "Z"}]
        preview = box.preview("edit_file", {"path": name, "edits": edits})
        print(name, repr(old[:12]), preview["kind"], preview.get("code"), flush=True)
"""


def test_every_preview_of_a_5mb_file_answers_quickly(tmp_path: Path) -> None:
    """A guard, not a measurement: 28 previews on 5 MB files in one child process must end
    well inside a minute (each took 11 s to minutes before; now each is well under one)."""
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answers = result.stdout.splitlines()
    assert len(answers) == 28
    assert "same.txt 'a\\na\\na\\na\\na\\na\\n' diff None" in answers
    assert all(" error edit_" in a or " diff " in a for a in answers), answers
