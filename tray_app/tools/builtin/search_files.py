"""search_files: files below a folder by name (a glob) or by a line of text inside them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP, _clamp, _extension
from tray_app.tools.builtin.fit_list import fitting, room_for
from tray_app.tools.fit import json_chars
from tray_app.tools.fs.fs_read import _folder, _hidden_from_model
from tray_app.tools.fs.fs_safe import (
    os_failure,
)
from tray_app.tools.fs.fs_walk import Walk
from tray_app.tools.result import ToolResult
from tray_app.tools.search import search_rg
from tray_app.tools.search.search_run import Search, single_file

SEARCH_MAX_DEPTH = 32
MAX_OFFSET = 100_000  # the search keeps the matches it skips: bounded


class SearchFilesArgs(ToolArgs):
    path: str = Field(description="The folder to search in. " + PATH_HELP)
    query: str = Field(
        min_length=1,
        max_length=500,
        description=(
            "Text to find. For file names a glob such as '*.ts' or 'test_*', or part of a name; "
            "inside files, plain text (not a regular expression)."
        ),
    )
    search_type: Literal["filename", "content", "both"] = Field(
        default="both",
        description="filename: match names; content: match lines inside files; both (default).",
    )
    case_sensitive: bool = Field(default=False, description="Match upper/lower case exactly.")
    max_results: int = Field(default=50, description="Stop after this many matches (1-200).")
    file_extensions: list[str] | None = Field(
        default=None, description="Only search files with these extensions, e.g. ['.ts', '.js']."
    )

    offset: int = Field(
        default=0,
        description="Skip this many matches: to go on, pass next_offset from the last result.",
    )

    @field_validator("offset", mode="before")
    @classmethod
    def _offset(cls, value: Any) -> Any:
        return _clamp(value, 0, MAX_OFFSET)

    @field_validator("search_type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("max_results", mode="before")
    @classmethod
    def _max(cls, value: Any) -> Any:
        return _clamp(value, 1, 200)

    @field_validator("file_extensions", mode="before")
    @classmethod
    def _exts(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part for part in value.replace(";", ",").split(",")]
        if isinstance(value, list):
            cleaned = [_extension(v) for v in value if isinstance(v, str) and v.strip()]
            return cleaned or None
        return value


def search_files(ctx: ToolContext, args: SearchFilesArgs) -> ToolResult:
    root = _folder(ctx.policy, args.path, "search")
    if isinstance(root, dict):
        return root
    walk = Walk(
        root,
        max_depth=SEARCH_MAX_DEPTH,
        skip=_hidden_from_model(ctx.policy, root),
        cancel=ctx.cancel,
        stat_entries=False,
    )
    search = Search(args, rg=search_rg.rg_binary(), cancel=ctx.cancel, deadline=walk.deadline)
    try:
        search.run(single_file(root) if root.is_file() else walk)
    except OSError as exc:
        return os_failure(exc, root, what="folder")
    page = _page(search.results, args.offset)
    shown = sum(len(entry["matches"]) for entry in page)
    result: dict[str, Any] = {
        "success": True,
        "query": args.query,
        "search_type": args.search_type,
        "results": page,
        "total_files": len(page),
        "total_matches": shown,
        "files_scanned": search.scanned,
        "truncated": search.truncated or walk.stopped is not None or walk.depth_limited,
    }
    if args.offset:
        result["offset"] = args.offset
    if search.truncated and search.total_matches >= search.limit:  # the page is full: go on
        result["next_offset"] = args.offset + shown
    return _fit(result, ctx.result_chars, args.offset)


def _page(results: list[dict[str, Any]], offset: int) -> list[dict[str, Any]]:
    """The results after the first ``offset`` matches, in the walk's order (a file's lines may
    fall on both sides of the cut)."""
    page, skip = [], offset
    for entry in results:
        count = len(entry["matches"])
        if skip >= count:
            skip -= count
            continue
        page.append({**entry, "matches": entry["matches"][skip:]} if skip else entry)
        skip = 0
    return page


_REST = (
    "more matches than fit here: call again with offset=next_offset, or search a narrower "
    "path, a more specific query, with file_extensions, or with a smaller max_results"
)


def _fit(result: dict[str, Any], limit: int | None, offset: int) -> dict[str, Any]:
    """Whole files (and whole matching lines) that fit ``limit``; the rest counted, and where
    the next call goes on (``next_offset``)."""
    files: list[dict[str, Any]] = result["results"]
    facts = {
        **result,
        "results_omitted": len(files),
        "matches_omitted": 0,
        "next_offset": offset + result["total_matches"],
        "rest": _REST,
    }
    room = room_for(facts, "results", limit)
    if room is None or fitting(files, room) == len(files):
        return result
    kept = [*files[: fitting(files, room)]]
    if not kept and files:  # one file's lines alone are too many: its first whole lines
        first = files[0]
        matches = first["matches"]
        overhead = json_chars({**first, "matches": []}) + 32
        kept = [{**first, "matches": matches[: max(1, fitting(matches, room - overhead))]}]
    shown = sum(len(entry["matches"]) for entry in kept)
    facts.update(
        results=kept,
        results_omitted=len(files) - len(kept),
        matches_omitted=max(0, result["total_matches"] - shown),
        next_offset=offset + shown,
    )
    return facts


TOOL = Tool(
    name="search_files",
    description=(
        "Find files below a folder by name (a glob such as '*.py') or lines of text inside "
        "files (plain text, not a regular expression). Returns matching files with line "
        "numbers; line 0 means the file name matched. When more matches follow, call again "
        "with offset=next_offset."
    ),
    args_model=SearchFilesArgs,
    risk=Risk.READ,
    handler=search_files,
)
