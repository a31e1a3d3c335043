"""Results that fit: the JSON a model receives is never cut; read_file stops at a whole line
and says where to go on; listings say how many entries were left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn
from tray_app.tools.fit import fit_result, json_chars
from tray_app.tools.registry import default_registry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

HOSTILE = '长文🙂 \u202eabc "q" \\ \n'


def run(box: Toolbox, name: str, args: dict[str, Any], limit: int) -> dict[str, Any]:
    checked = box.check(name, args)
    assert not isinstance(checked, str), checked
    result = box.run_checked(checked, result_chars=limit)
    assert json_chars(result) <= limit
    return result


@pytest.fixture
def box(tmp_path: Path) -> Toolbox:
    policy = SandboxPolicy(allowed_dirs=[tmp_path], workspace=tmp_path, home=tmp_path / "h")
    return Toolbox(policy, registry=default_registry())


@pytest.mark.parametrize("limit", [1_000, 4_000, 16_000])
def test_a_long_file_comes_in_whole_lines_and_can_be_followed_to_the_end(
    box: Toolbox, tmp_path: Path, limit: int
) -> None:
    lines = [f"{i:04d} {'x' * 40} {HOSTILE[:-1]}\n" for i in range(1, 501)]
    (tmp_path / "long 长.txt").write_text("".join(lines), encoding="utf-8")
    got: list[str] = []
    start: int | None = 1
    calls = 0
    while start is not None and calls < 600:
        calls += 1
        result = run(box, "read_file", {"path": "long 长.txt", "start_line": start}, limit)
        first, last = result["line_range"]
        assert first == start and result["lines"] == 500
        assert result["content"] == "".join(lines[first - 1 : last])  # whole lines only
        got.extend(result["content"].splitlines(keepends=True))
        assert result["truncated"] is (last < 500)
        start = result.get("next_start_line")
        assert start == (last + 1 if last < 500 else None)
    assert got == lines
    if limit == 16_000:  # the example: ~258 lines before, cut JSON; now whole lines
        assert calls >= 2


def test_one_line_longer_than_the_room_comes_as_its_start(box: Toolbox, tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("a" * 50_000 + "\nsecond\n")
    result = run(box, "read_file", {"path": "one.txt"}, 2_000)
    assert result["partial_line"] is True and result["truncated"] is True
    assert result["line_range"] == [1, 1] and result["next_start_line"] == 2
    assert result["content"].startswith("aaa") and "more characters not shown" in result["content"]


def test_a_big_listing_says_how_many_entries_were_left_out(box: Toolbox, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(400):
        (folder / f"文件 {i:03d} 🙂.txt").write_text("x")
    result = run(box, "list_directory", {"path": "many"}, 4_000)
    shown = len(result["entries"])
    assert 0 < shown < 400 and result["entries_omitted"] == 400 - shown
    assert "cut_to_fit" not in result and result["next_offset"] == shown


def test_several_files_share_the_room_in_whole_lines(box: Toolbox, tmp_path: Path) -> None:
    for name in ("a 甲.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text("".join(f"{name} {i} 🙂\n" for i in range(400)))
    paths = ["a 甲.txt", "b.txt", "c.txt", "missing.txt"]
    result = run(box, "read_multiple_files", {"paths": paths}, 3_000)
    assert "cut_to_fit" not in result  # sized by the tool itself, not shrunk afterwards
    files = result["files"]
    assert [f["success"] for f in files] == [True, True, True, False]
    for one in files[:3]:
        first, last = one["line_range"]
        assert one["truncated"] and one["next_start_line"] == last + 1
        assert one["content"].count("\n") == last - first + 1  # whole lines


def test_fit_result_keeps_the_json_whole_and_bounded() -> None:
    big = {
        "success": True,
        "stdout": HOSTILE * 20_000,
        "stderr": "e" * 5_000,
        "matches": [{"path": f"/w/{i}", "line": i, "text": HOSTILE} for i in range(5_000)],
        "nested": {"deep": [[HOSTILE * 100] * 3]},
    }
    for limit in (1_000, 3_000, 16_000, 100_000):
        fitted = fit_result(big, limit)
        text = json.dumps(fitted, ensure_ascii=False)
        assert len(text) <= limit and json.loads(text) == fitted
        assert fitted["success"] is True
    # What is kept is most of the room, not a token: escapes (\n, quotes) are counted as JSON.
    long_text = {"success": True, "content": '长文🙂 "a"\n' * 30_000}
    kept = fit_result(long_text, 16_000)["content"]
    assert 12_000 < len(json.dumps(kept, ensure_ascii=False)) <= 16_000
    listing = {"success": True, "entries": [{"name": f"f{i}", "size": i} for i in range(5_000)]}
    fitted = fit_result(listing, 16_000)
    assert len(fitted["entries"]) > 300
    assert len(fitted["entries"]) + fitted["entries_omitted"] == 5_000
    small = {"success": True, "n": 1}
    assert fit_result(small, 1_000) is small
    many_keys = {f"k{i}": i for i in range(10_000)}
    refused = fit_result(many_keys, 1_000)
    assert refused["success"] is False and "too large" in refused["error"]


def test_the_model_gets_whole_json_through_the_loop(make_rig: Any) -> None:
    """A real turn: the tool message the fake server receives parses, and says where to go on."""
    rig: Rig = make_rig(default_registry=True, tool_result_limit=3_000)
    lines = [f"line {i} 内容 🙂 {'y' * 50}\n" for i in range(1, 301)]
    (rig.workspace / "big.txt").write_text("".join(lines), encoding="utf-8")
    rig.fake.script(tool_turn([("read_file", {"path": "big.txt"})]), text_turn("ok"))
    _, turn = rig.send("read it")
    assert rig.finish(turn).stop_reason == "done"
    sent = [m for m in rig.fake.requests[1]["messages"] if m["role"] == "tool"]
    assert len(sent) == 1 and len(sent[0]["content"]) <= 3_000
    result = json.loads(sent[0]["content"])
    first, last = result["line_range"]
    assert first == 1 and 1 < last < 300 and result["next_start_line"] == last + 1
    assert result["content"] == "".join(lines[:last])


NAMES = ["笔记 {i:04d} 🙂.txt", "\u202eevil {i:04d}.md", 'emoji 👨‍👩‍👧 {i:04d} "q" \\.txt']


@pytest.mark.parametrize("limit", [2_000, 6_000])
def test_a_huge_tree_is_listed_in_whole_entries_and_paged_to_the_end(
    box: Toolbox, tmp_path: Path, limit: int
) -> None:
    """1,200 CJK/emoji/bidi names in nested folders: every page is whole JSON of whole entries,
    says how many were left out, and offset=next_offset reaches every entry exactly once."""
    root = tmp_path / "树 🌳"
    expected: set[str] = set()
    for d in range(4):
        sub = root / f"目录 {d} 📁"
        sub.mkdir(parents=True)
        expected.add(f"目录 {d} 📁")
        for i in range(300):
            name = NAMES[i % 3].format(i=i)
            (sub / name).write_text("x")
            expected.add(f"目录 {d} 📁/{name}")
    seen: list[str] = []
    offset, calls = 0, 0
    args: dict[str, Any] = {"path": root.name, "recursive": True}
    while calls < 1_000:
        calls += 1
        result = run(box, "list_directory", {**args, "offset": offset}, limit)
        assert "cut_to_fit" not in result  # sized by the tool itself, not shrunk after
        names = [e["name"] for e in result["entries"]]
        assert names and all(n in expected for n in names)  # whole names, none shortened
        seen.extend(names)
        if "next_offset" not in result:
            break
        assert result["entries_omitted"] > 0 or result["truncated"]
        assert "offset=next_offset" in result["rest"]
        assert result["next_offset"] == offset + len(names)
        offset = result["next_offset"]
    assert sorted(seen) == sorted(expected) and len(seen) == len(expected)
    assert calls > 3


def test_a_listing_that_fits_is_unchanged(box: Toolbox, tmp_path: Path) -> None:
    (tmp_path / "a 甲.txt").write_text("x")
    result = run(box, "list_directory", {"path": "."}, 16_000)
    assert [e["name"] for e in result["entries"]] == ["a 甲.txt"]
    assert not {"next_offset", "entries_omitted", "rest", "offset"} & set(result)


def test_a_big_search_keeps_whole_files_and_lines_and_says_how_to_narrow(
    box: Toolbox, tmp_path: Path
) -> None:
    folder = tmp_path / "搜索"
    folder.mkdir()
    for i in range(60):
        body = "".join(f"第 {n} 行 needle 🙂 \u202e{'z' * 30}\n" for n in range(3))
        (folder / NAMES[i % 3].format(i=i)).write_text(body, encoding="utf-8")
    args = {"path": "搜索", "query": "needle", "search_type": "content", "max_results": 200}
    result = run(box, "search_files", args, 3_000)
    assert "cut_to_fit" not in result
    kept = result["results"]
    assert kept and result["results_omitted"] == 60 - len(kept)
    assert all(len(f["matches"]) == 3 for f in kept)  # whole files, whole lines
    assert result["total_matches"] == 180
    assert result["matches_omitted"] == 180 - 3 * len(kept)
    assert "narrower path" in result["rest"]
    # One file with more matching lines than the room: its first whole lines.
    line = "needle 🙂 ✓ \u202e" + "w" * 150
    (folder / "大 big.txt").write_text(f"{line}\n" * 200, encoding="utf-8")
    one = run(box, "search_files", {**args, "path": "搜索/大 big.txt"}, 1_500)
    shown = one["results"][0]["matches"]
    found = one["total_matches"]
    assert 0 < len(shown) < found and one["matches_omitted"] == found - len(shown)
    assert all(m["text"] == line for m in shown)


def test_a_results_images_are_not_cut_nor_counted_as_the_models_text() -> None:
    image = {"mime_type": "image/png", "bytes": 300_000, "data": "iVBOR" + "A" * 400_000}
    result = {"success": True, "content": "红点 🔴", "card_images": [image]}
    assert fit_result(result, 1_000) is result  # the text fits: nothing to do
    long = {**result, "content": HOSTILE * 5_000}
    fitted = fit_result(long, 2_000)
    assert fitted["card_images"] == [image]  # whole, the data intact
    text = {k: v for k, v in fitted.items() if k != "card_images"}
    assert len(json.dumps(text, ensure_ascii=False)) <= 2_000 and "cut_to_fit" in fitted
