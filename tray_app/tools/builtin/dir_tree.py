"""directory_tree: a folder's contents as nested JSON, for a model to see a project's shape.

The same walk and filters as list_directory (no links followed, secrets and blocked folders
left out, hidden entries only when asked) with ``exclude`` globs matched against names and
relative paths; capped at ``MAX_TREE_ENTRIES`` entries, breadth first, so a cut tree still has
its top levels.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any

from pydantic import Field, field_validator

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.file_args import PATH_HELP, _clamp
from tray_app.tools.fs.fs_read import _folder, _hidden_from_model
from tray_app.tools.fs.fs_safe import os_failure
from tray_app.tools.fs.fs_walk import Entry, Walk, is_regular
from tray_app.tools.result import ToolResult

MAX_TREE_ENTRIES = 500


class DirectoryTreeArgs(ToolArgs):
    path: str = Field(description="The folder to show. " + PATH_HELP)
    max_depth: int = Field(default=3, description="How many folder levels to show (1-10).")
    exclude: list[str] = Field(
        default_factory=list,
        description="Names or globs to leave out, such as 'node_modules' or '*.pyc'.",
    )
    include_hidden: bool = Field(
        default=False, description="Also show hidden entries (names starting with '.')."
    )

    @field_validator("max_depth", mode="before")
    @classmethod
    def _depth(cls, value: Any) -> Any:
        return _clamp(value, 1, 10)

    @field_validator("exclude", mode="before")
    @classmethod
    def _globs(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            value = value.replace(";", ",").split(",")
        if isinstance(value, list):
            return [v.strip() for v in value if isinstance(v, str) and v.strip()][:50]
        return value


def _excluded(globs: list[str]) -> Any:
    folded = [g.casefold().rstrip("/") for g in globs]

    def hit(entry: Entry) -> bool:
        name = entry.name.casefold()
        rel = entry.rel.replace(os.sep, "/").casefold()
        return any(fnmatch.fnmatchcase(name, g) or fnmatch.fnmatchcase(rel, g) for g in folded)

    return hit


def directory_tree(ctx: ToolContext, args: DirectoryTreeArgs) -> ToolResult:
    root = _folder(ctx.policy, args.path, "list")
    if isinstance(root, dict):
        return root
    hidden = _hidden_from_model(ctx.policy)
    excluded = _excluded(args.exclude)
    walk = Walk(
        root, max_depth=args.max_depth, include_hidden=args.include_hidden, cancel=ctx.cancel
    )
    top: list[dict[str, Any]] = []
    folders: dict[str, dict[str, Any]] = {}  # below the root, by path: their nodes
    opened: set[str] = set()  # folders whose entries are all in the tree
    count, cut = 0, False
    try:
        for listing in walk.listings():
            rel = listing.prefix.rstrip(os.sep)
            entries = [e for e in listing.entries() if not (hidden(e) or excluded(e))]
            listing.subfolders = [e for e in entries if e.kind == "directory"]
            room = MAX_TREE_ENTRIES - count
            if len(entries) > room:
                entries, cut = entries[:room], True
            children = folders[rel]["children"] if rel else top
            for entry in entries:
                node: dict[str, Any] = {"name": entry.name, "type": entry.kind}
                if is_regular(entry):
                    node["size"] = entry.info.st_size
                if entry.kind == "directory":
                    node["children"] = []
                    folders[entry.rel] = node
                children.append(node)
            count += len(entries)
            if not cut and walk.stopped != "folder too large":
                opened.add(rel)
            if cut:
                break
    except OSError as exc:
        return os_failure(exc, root, what="folder")
    stopped = cut or walk.stopped is not None
    _mark_unopened(top, args.max_depth)
    _mark_cut(folders, opened, args.max_depth, stopped)
    return {
        "success": True,
        "path": str(root),
        "tree": top,
        "total": count,
        "truncated": stopped,
        "max_depth": args.max_depth,
    }


def _mark_cut(
    folders: dict[str, dict[str, Any]], opened: set[str], max_depth: int, stopped: bool
) -> None:
    """A folder the walk did not list whole says so instead of looking empty or complete:
    ``truncated`` when the walk was cut (by the entry cap, a folder with too many entries,
    time or cancel), ``not_listed`` when it could not be read."""
    for rel, node in folders.items():
        if rel in opened or "not_listed" in node or rel.count(os.sep) + 1 >= max_depth:
            continue
        node["truncated" if stopped else "not_listed"] = True


def _mark_unopened(nodes: list[dict[str, Any]], depth_left: int) -> None:
    """Folders at the depth limit say so, instead of looking empty."""
    for node in nodes:
        if "children" not in node:
            continue
        if depth_left <= 1:
            del node["children"]
            node["not_listed"] = True
        else:
            _mark_unopened(node["children"], depth_left - 1)


TOOL = Tool(
    name="directory_tree",
    description=(
        "Show a folder's files and sub-folders as a nested tree (up to max_depth levels, at "
        f"most {MAX_TREE_ENTRIES} entries). Use exclude to leave out names such as "
        "node_modules."
    ),
    args_model=DirectoryTreeArgs,
    risk=Risk.READ,
    handler=directory_tree,
)
