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
