"""search_files' line matching in raw bytes gives exactly what matching the decoded text gives."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.tools.attack_helpers import ok
from tray_app.tools.search import search_lines
from tray_app.tools.search.search_lines import ByteNeedle, line_matches
from tray_app.tools.toolbox import Toolbox

BIDI = "\u202e"
# Pieces of UTF-8 (and of broken UTF-8) that the matching must agree on.
PIECES = [
    *"aAbBiIkKsS x.",
    "\n",
    "\r",
    "\u0130",  # İ: lowers to two characters
    "\u0307",  # the combining dot of İ's lowercase
    "\u212a",  # the Kelvin sign: lowers to ASCII k
    "针",
    "函数",
    "🙂",
    BIDI,
    "σ",
    "Σ",
    "ß",
    "é",
]
BROKEN = [b"\xff", b"\x80", b"\xc4", b"\xe2\x84", b"\xf0\x9f\x99", b"\xed\xa0\x80"]


def random_data(rnd: random.Random) -> bytes:
    parts = []
    for _ in range(rnd.randint(0, 40)):
        if rnd.random() < 0.15:
            parts.append(rnd.choice(BROKEN))
        else:
            parts.append(rnd.choice(PIECES).encode())
    return b"".join(parts)


def test_byte_matching_equals_text_matching_on_hostile_bytes() -> None:
    rnd = random.Random(13)
    compared = matched = 0
    queries = [p for p in PIECES if p != "\n"] + ["\n"]
    for _ in range(20_000):
        data = random_data(rnd)
        query = "".join(rnd.choice(queries) for _ in range(rnd.randint(1, 3)))
        case_sensitive = rnd.random() < 0.3
        needle = ByteNeedle.of(query, case_sensitive)
        if needle is None:
            continue
        fast = needle.matches(data)
        if fast is None:
            continue
        text = data.decode("utf-8", errors="replace")
        assert fast == line_matches(text, query, case_sensitive), (data, query, case_sensitive)
        compared += 1
        matched += bool(fast)
    assert compared > 5_000 and matched > 1_000  # the bytes path really ran, and found lines


def test_long_lines_and_many_matches_agree() -> None:
    data = ("x" * 5000 + " 针needle🙂 " + "y" * 5000 + "\n").encode() * 3
    data += b"NEEDLE\r\n" * 40
    needle = ByteNeedle.of("NeEdLe", False)
    assert needle is not None
    fast = needle.matches(data)
    assert fast == line_matches(data.decode(), "NeEdLe", False)
    assert fast is not None and len(fast) == 10 and fast[0]["column"] == 5003


def test_queries_with_cased_non_ascii_letters_go_the_text_way() -> None:
    assert ByteNeedle.of("Straße", False) is None
    assert ByteNeedle.of("σ", False) is None
    assert ByteNeedle.of("\ud800", True) is None
    assert ByteNeedle.of("Straße", True) is not None
    assert ByteNeedle.of("函数 🙂" + BIDI + "x", False) is not None
    kelvin = ByteNeedle.of("k", False)
    assert kelvin is not None and kelvin.matches("\u212a".encode()) is None  # the text way


def test_the_unicode_facts_the_byte_matching_rests_on() -> None:
    """Only İ and the Kelvin sign lower to ASCII; a caseless character is no one's lowercase."""
    to_ascii, preimages = set(), {}
    for code in range(0x80, 0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        lower = char.lower()
        if any(c.isascii() for c in lower):
            to_ascii.add(char)
        if len(lower) == 1 and lower != char:
            preimages.setdefault(lower, set()).add(char)
    assert {c.encode() for c in to_ascii} == {search_lines._DOTTED_I, search_lines._KELVIN}
    caseless_with_preimage = [
        c for c in preimages if not c.isascii() and c.lower() == c == c.upper()
    ]
    assert caseless_with_preimage == []


def test_search_files_gives_the_same_answer_with_and_without_byte_matching(
    box: Toolbox, layout: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real tool, on files with CJK, emoji and bidi names and contents."""
    work = layout.work
    (work / "笔记 🙂").mkdir()
    (work / "笔记 🙂" / f"{BIDI}txt.exe 名.md").write_text(
        f"第一行 Needle 世界\n{BIDI}needle{BIDI} 🙂\nİstanbul NEEDLE\nK Kelvin \u212a\n"
    )
    (work / "笔记 🙂" / "函数.py").write_bytes(
        "def 函数(): return 'needle'\n".encode() + b"\xff\xfe broken needle\n" + b"k" * 3
    )
    (work / "🙂.txt").write_text("a needle and a NEEDLE\n" * 30)
    queries = ["needle", "NEEDLE", "k", "函数", "🙂", f"{BIDI}needle", "i", "needle 🙂"]

    def answers() -> list[dict[str, Any]]:
        return [
            ok(box.execute("search_files", {"path": ".", "query": q, "search_type": "content"}))
            for q in queries
        ] + [
            ok(
                box.execute(
                    "search_files",
                    {"path": ".", "query": "NEEDLE", "case_sensitive": True, "max_results": 200},
                )
            )
        ]

    used: list[bool] = []
    real = ByteNeedle.matches

    def spy(self: ByteNeedle, data: bytes) -> list[dict[str, Any]] | None:
        answer = real(self, data)
        used.append(answer is not None)
        return answer

    monkeypatch.setattr(ByteNeedle, "matches", spy)
    fast = answers()
    assert any(used)
    monkeypatch.setattr(ByteNeedle, "of", classmethod(lambda cls, q, c: None))
    assert answers() == fast
    names = {Path(r["path"]).name for r in fast[0]["results"]}
    assert {f"{BIDI}txt.exe 名.md", "函数.py", "🙂.txt"} <= names
