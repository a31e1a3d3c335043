"""Focused regression tests for what the red-team corpus (``test_redteam_corpus.py``) found."""

from __future__ import annotations

from tray_app.tools.base import Toolbox


def test_deeply_nested_json_arguments_are_refused_not_raised(box: Toolbox) -> None:
    # json.loads raises RecursionError (not a ValueError) on "[[[[..." nested 100 000 deep.
    for raw in ("[" * 100_000, '{"path": ' + "[" * 50_000 + "]" * 50_000 + "}"):
        for name in ("read_file", "write_file"):
            result = box.execute(name, raw)
            assert result["success"] is False
            assert "nested too deeply" in result["error"]
            assert box.preview(name, raw)["kind"] == "error"


def test_infinite_numbers_are_clamped_not_raised(box: Toolbox, layout) -> None:
    # JSON "Infinity" and "1e999" parse to float('inf'); int(inf) raised OverflowError.
    (layout.work / "a.txt").write_text("one\ntwo\n")
    result = box.execute(
        "read_file", '{"path": "a.txt", "start_line": -Infinity, "end_line": 1e999}'
    )
    assert result["success"] is True and result["content"] == "one\ntwo\n"
    listing = box.execute("list_directory", {"path": ".", "recursive": True, "max_depth": 1e999})
    assert listing["success"] is True
    found = box.execute("search_files", '{"path": ".", "query": "two", "max_results": Infinity}')
    assert found["success"] is True and found["total_matches"] == 1
    nan = box.execute("read_file", {"path": "a.txt", "start_line": float("nan")})
    assert nan["success"] is False and "finite" in nan["error"]


def test_refusals_never_name_what_a_link_outside_leads_to(box: Toolbox, layout) -> None:
    # The resolved path in "(resolved to …)" disclosed names of files outside the allowed
    # folders: chains through links there, dangling targets, loops, secret-looking names.
    hidden = "SECRET-NAME-7c1d"
    (layout.outside / f"{hidden}.txt").write_text("x")
    (layout.outside / "hop").symlink_to(layout.outside / f"{hidden}.txt")
    (layout.outside / "loop").symlink_to(layout.outside / "loop")
    links = {
        "chain": layout.outside / "hop",
        "dangling": layout.outside / f"{hidden}-dir" / "new.txt",
        "to_key": layout.outside / f"{hidden}.pem",
        "to_loop": layout.outside / "loop",
    }
    for name, target in links.items():
        (layout.work / name).symlink_to(target)
    raws = [*links, str(layout.outside / "hop"), "chain/x", "to_loop/x"]
    for raw in raws:
        for tool in ("read_file", "write_file", "list_directory", "search_files"):
            args = {"path": raw, "content": "x", "query": "x"}
            result = box.execute(tool, args)
            assert result["success"] is False, (tool, raw)
            assert hidden not in result["error"] and "loop at" not in result["error"], result
            preview = box.preview(tool, args)
            assert hidden not in str(preview)
    # A path that leads outside without a link still says where it resolved to.
    message = box.execute("read_file", {"path": "../outside/x.txt"})["error"]
    assert str(layout.outside / "x.txt") in message and "outside the allowed folders" in message
