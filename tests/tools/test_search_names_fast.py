"""The name search reads folder listings and builds an entry only for a hit; its answers, caps
and hidden names are the same as the entry-by-entry search's."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tests.tools.attack_helpers import ok
from tray_app.tools.builtin.search_files import SEARCH_MAX_DEPTH, SearchFilesArgs
from tray_app.tools.fs import fs_walk
from tray_app.tools.fs.walk_filter import HiddenFromModel
from tray_app.tools.search import search_names, search_run
from tray_app.tools.search.search_run import Search

HOSTILE = ["数据.md", "🙂.md", "\u202ed.md", "plain.MD", "a" * 200 + ".md", "x.py", "y.txt"]


def build(root: Path) -> None:
    """Folders of hostile names, a secret in each, a blocked folder with matching names."""
    for index, folder in enumerate(["", "深/層", "b", "b/🙂.md", "blocked", "c"]):
        where = root / folder
        where.mkdir(parents=True, exist_ok=True)
        for name in HOSTILE[: 3 + index]:
            (where / f"{index}{name}").write_text("x")
        (where / ".env").write_text("SECRET=1")
        (where / "id_rsa.md").write_text("key")


def run(policy: Any, root: Path, entries_whole: bool, **args: Any) -> dict[str, Any]:
    walk = fs_walk.Walk(
        root,
        max_depth=SEARCH_MAX_DEPTH,
        skip=HiddenFromModel(policy, root),
        stat_entries=False,
    )
    search = Search(SearchFilesArgs(path=str(root), search_type="filename", **args))
    search.run(list(walk) if entries_whole else walk)  # a list takes the entry-by-entry way
    return {
        "results": search.results,
        "total": search.total_matches,
        "scanned": search.scanned,
        "truncated": search.truncated,
    }


@pytest.mark.parametrize("cap", [None, 1, 4, 9, 16])
def test_names_by_listing_equal_names_entry_by_entry(
    layout: Any, policy_for: Any, monkeypatch: pytest.MonkeyPatch, cap: int | None
) -> None:
    root = layout.work
    build(root)
    policy = policy_for(blocked_dirs=[root / "blocked"])
    if cap is not None:  # the files-looked-at cap, met in the middle of some folder
        monkeypatch.setattr(search_run, "MAX_NAME_FILES", cap)
        monkeypatch.setattr(search_names, "MAX_NAME_FILES", cap)
    queries = ["*.md", "🙂", "\u202e", "数据*", "B", "*/*.md", "深/層/*"]
    for query, limit, exts in itertools.product(queries, [1, 2, 3, 5, 200], [None, [".md"]]):
        args = {"query": query, "max_results": limit, "file_extensions": exts}
        fast = run(policy, root, False, **args)
        slow = run(policy, root, True, **args)
        assert fast == slow, args
        shown = " ".join(r["path"] for r in fast["results"])
        assert ".env" not in shown and "id_rsa" not in shown and "blocked" not in shown
    every = run(policy, root, False, query="*.md", max_results=200)
    assert not every["truncated"] or cap is not None
    if cap is None:  # the hostile names are found, each once, shallow first
        names = [Path(r["path"]).name for r in every["results"]]
        assert "0数据.md" in names and "1🙂.md" in names and "2\u202ed.md" in names
        assert len(names) == len(set(r["path"] for r in every["results"]))
        assert names.index("0数据.md") < names.index("1数据.md")


def test_a_name_search_builds_entries_only_for_hits_and_folders(
    box: Any, layout: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for folder in range(20):
        where = layout.work / f"d{folder}"
        where.mkdir()
        for index in range(100):
            (where / f"file_{index}_数据.py").touch()
    (layout.work / "d7" / "README 🙂.md").touch()
    built: list[str] = []

    class Counted(fs_walk.Entry):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self.name)

    monkeypatch.setattr(fs_walk, "Entry", Counted)
    query = {"path": ".", "query": "*.md", "search_type": "filename", "max_results": 200}
    result = ok(box.execute("search_files", query))
    assert [Path(r["path"]).name for r in result["results"]] == ["README 🙂.md"]
    assert result["files_scanned"] == 2001 and not result["truncated"]
    # 20 folders (to go into them) and the one hit; not one per name (2,021)
    assert len(built) <= 21 + 2, len(built)
