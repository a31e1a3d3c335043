"""read_file, list_directory, search_files through Toolbox.execute (T01–T03,
T07–T11 and T17), plus their limits."""

from __future__ import annotations

import base64
import os
import threading
from pathlib import Path

from tests.tools.attack_helpers import err, ok
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.fs import fs_read, fs_walk
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.toolbox import Toolbox

# ---- the reference cases --------------------------------------------------------


def test_t01_read_an_existing_file(box, layout, project):
    result = ok(box.execute("read_file", {"path": "package.json"}))
    assert result["content"] == '{"name": "demo"}\n'
    assert result["path"] == str(layout.work / "package.json")
    assert result["encoding"] == "utf-8"
    assert result["size"] == 17
    assert result["lines"] == 1
    assert result["truncated"] is False
    assert result["line_range"] == [1, 1]


def test_t02_read_a_missing_file(box, layout):
    message = err(box.execute("read_file", {"path": "nonexistent.txt"}))
    assert message == f"file not found: {layout.work / 'nonexistent.txt'}"


def test_t03_read_a_file_over_1_mb(box, layout):
    (layout.work / "large.log").write_bytes(b"x" * (2 * 1024 * 1024))
    message = err(box.execute("read_file", {"path": "large.log"}))
    assert "too large" in message and "2.0 MB" in message and "1 MB" in message


def test_t07_path_traversal(box):
    message = err(box.execute("read_file", {"path": "../../etc/passwd"}))
    assert "outside the allowed folders" in message or "system folder" in message


def test_t08_list_a_directory(box, layout, project):
    result = ok(box.execute("list_directory", {"path": "src/"}))
    assert result["path"] == str(project)
    names = {e["name"]: e for e in result["entries"]}
    assert set(names) == {"main", "renderer", "README.md"}
    assert names["main"]["type"] == "directory" and names["main"]["size"] is None
    assert names["README.md"]["type"] == "file" and names["README.md"]["size"] == 5
    assert names["README.md"]["modified"].endswith("Z")
    assert result["total"] == 3 and result["truncated"] is False


def test_t09_list_recursively_with_max_depth(box, layout, project):
    (project / "main" / "deep").mkdir()
    (project / "main" / "deep" / "hidden_by_depth.ts").write_text("x")
    result = ok(box.execute("list_directory", {"path": "src/", "recursive": True, "max_depth": 2}))
    names = [e["name"] for e in result["entries"]]
    assert os.path.join("main", "main.ts") in names
    assert os.path.join("main", "deep") in names
    assert os.path.join("main", "deep", "hidden_by_depth.ts") not in names
    assert names == sorted(names, key=lambda n: [p.casefold() for p in n.split(os.sep)])


def test_t10_search_file_names_with_a_glob(box, layout, project):
    result = ok(
        box.execute("search_files", {"path": "src/", "query": "*.ts", "search_type": "filename"})
    )
    found = {Path(r["path"]).name for r in result["results"]}
    assert found == {"main.ts", "ipc.ts"}
    assert all(r["matches"][0]["line"] == 0 for r in result["results"])
    assert result["search_type"] == "filename" and result["query"] == "*.ts"


def test_t11_search_content(box, layout, project):
    result = ok(
        box.execute(
            "search_files", {"path": "src/", "query": "import electron", "search_type": "content"}
        )
    )
    by_name = {Path(r["path"]).name: r["matches"] for r in result["results"]}
    assert by_name["main.ts"] == [
        {"line": 2, "text": "import electron from 'electron';", "column": 1}
    ]
    assert by_name["app.js"][0]["column"] == 14
    assert "ipc.ts" not in by_name
    assert result["total_matches"] == 2 and result["total_files"] == 2


def test_t17_a_disabled_tool_does_not_run(policy, layout):
    (layout.work / "a.txt").write_text("x")
    box = Toolbox(policy, enabled=["list_directory"], registry=ToolRegistry(FILE_TOOLS))
    message = err(box.execute("read_file", {"path": "a.txt"}))
    assert "not enabled" in message


# ---- read_file details ------------------------------------------------------------------


def test_at_most_500_lines_without_a_range(box, layout):
    (layout.work / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 1201)))
    result = ok(box.execute("read_file", {"path": "long.txt"}))
    assert result["truncated"] is True
    assert result["line_range"] == [1, 500]
    assert result["lines"] == 1200
    assert result["content"].endswith("line 500\n")


def test_a_range_returns_those_lines(box, layout):
    (layout.work / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 1201)))
    result = ok(box.execute("read_file", {"path": "long.txt", "start_line": 700, "end_line": 702}))
    assert result["content"] == "line 700\nline 701\nline 702\n"
    assert result["line_range"] == [700, 702] and result["truncated"] is True
    tail = ok(box.execute("read_file", {"path": "long.txt", "start_line": 1000}))
    assert tail["line_range"] == [1000, 1200] and tail["truncated"] is False
    wide = ok(box.execute("read_file", {"path": "long.txt", "start_line": 1, "end_line": 9999}))
    assert wide["line_range"] == [1, 1200]


def test_bad_ranges_are_explained(box, layout):
    (layout.work / "s.txt").write_text("a\nb\n")
    assert "past the end" in err(box.execute("read_file", {"path": "s.txt", "start_line": 5}))
    assert "before start_line" in err(
        box.execute("read_file", {"path": "s.txt", "start_line": 2, "end_line": 1})
    )


def test_line_zero_is_taken_as_the_first_line(box, layout):
    (layout.work / "s.txt").write_text("a\nb\n")
    assert ok(box.execute("read_file", {"path": "s.txt", "start_line": 0}))["content"] == "a\nb\n"


def test_crlf_and_no_final_newline_round_trip(box, layout):
    (layout.work / "w.txt").write_bytes(b"a\r\nb\r\nc")
    result = ok(box.execute("read_file", {"path": "w.txt"}))
    assert result["content"] == "a\r\nb\r\nc" and result["lines"] == 3


def test_an_empty_file(box, layout):
    (layout.work / "e.txt").write_text("")
    result = ok(box.execute("read_file", {"path": "e.txt"}))
    assert result["content"] == "" and result["lines"] == 0 and result["line_range"] == [0, 0]


def test_binary_files_are_refused_unless_base64(box, layout):
    data = bytes(range(256)) * 4
    (layout.work / "img.bin").write_bytes(data)
    assert "binary" in err(box.execute("read_file", {"path": "img.bin"}))
    assert "binary" in err(box.execute("read_file", {"path": "img.bin", "encoding": "latin1"}))
    result = ok(box.execute("read_file", {"path": "img.bin", "encoding": "base64"}))
    assert base64.b64decode(result["content"]) == data
    assert result["encoding"] == "base64" and result["size"] == len(data)


def test_invalid_utf8_suggests_latin1(box, layout):
    (layout.work / "old.txt").write_bytes("café".encode("latin-1"))
    assert "latin1" in err(box.execute("read_file", {"path": "old.txt"}))
    result = ok(box.execute("read_file", {"path": "old.txt", "encoding": "LATIN-1"}))
    assert result["content"] == "café" and result["encoding"] == "latin1"


def test_reading_a_folder_says_use_list_directory(box, layout):
    (layout.work / "d").mkdir()
    assert "list_directory" in err(box.execute("read_file", {"path": "d"}))


def test_a_file_that_lies_about_its_size_is_still_capped(box, layout, monkeypatch):
    (layout.work / "liar.txt").write_bytes(b"a" * (1024 * 1024 + 10))
    real_fstat = os.fstat

    def lying_fstat(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        fields = list(info)
        fields[6] = 10  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(fs_read.os, "fstat", lying_fstat, raising=True)
    assert "too large" in err(box.execute("read_file", {"path": "liar.txt"}))


def test_read_capped_counts_bytes_read_not_the_size(tmp_path):
    from tray_app.tools.fs.fs_safe import read_capped

    read_end, write_end = os.pipe()
    writer = threading.Thread(
        target=lambda: (os.write(write_end, b"z" * 300_000), os.close(write_end))
    )
    writer.start()
    try:
        data = read_capped(read_end, 100_000)
    finally:
        os.close(read_end)
        writer.join(timeout=10)
    assert len(data) == 100_001


# ---- list_directory details -------------------------------------------------------------


def test_hidden_entries_only_on_request(box, layout):
    (layout.work / ".config").mkdir()
    (layout.work / "visible.txt").write_text("x")
    names = [e["name"] for e in ok(box.execute("list_directory", {"path": "."}))["entries"]]
    assert names == ["visible.txt"]
    names = [
        e["name"]
        for e in ok(box.execute("list_directory", {"path": ".", "include_hidden": True}))["entries"]
    ]
    assert names == [".config", "visible.txt"]


def test_filter_extension_keeps_folders_and_matching_files(box, layout):
    for name in ("a.py", "b.PY", "c.txt"):
        (layout.work / name).write_text("x")
    (layout.work / "pkg").mkdir()
    result = ok(box.execute("list_directory", {"path": ".", "filter_extension": "py"}))
    assert [e["name"] for e in result["entries"]] == ["a.py", "b.PY", "pkg"]


def test_listing_stops_at_500_entries(box, layout):
    for i in range(600):
        (layout.work / f"f{i:04}.txt").write_text("")
    result = ok(box.execute("list_directory", {"path": "."}))
    assert result["total"] == 500 and len(result["entries"]) == 500
    assert result["truncated"] is True


def test_listing_a_file_or_a_missing_folder_is_explained(box, layout):
    (layout.work / "f.txt").write_text("x")
    assert "read_file" in err(box.execute("list_directory", {"path": "f.txt"}))
    assert "folder not found" in err(box.execute("list_directory", {"path": "nope"}))


def test_symlinks_are_listed_as_links_and_never_followed(box, layout):
    (layout.outside / "secret_dir").mkdir()
    (layout.outside / "secret_dir" / "inner.txt").write_text("x")
    (layout.work / "door").symlink_to(layout.outside / "secret_dir")
    result = ok(box.execute("list_directory", {"path": ".", "recursive": True}))
    assert [(e["name"], e["type"], e["size"]) for e in result["entries"]] == [
        ("door", "symlink", None)
    ]


def test_the_walk_stops_at_its_time_budget(box, layout, monkeypatch):
    for i in range(5):
        (layout.work / f"d{i}").mkdir()
    monkeypatch.setattr(fs_walk, "DEFAULT_TIME_BUDGET", 0.0)
    result = ok(box.execute("list_directory", {"path": ".", "recursive": True}))
    assert result["truncated"] is True


def test_max_depth_is_clamped_not_refused(box, layout):
    result = ok(box.execute("list_directory", {"path": ".", "recursive": True, "max_depth": 999}))
    assert result["truncated"] is False
