"""Which paths a tool call names, as the lasting rules see them, and the folder a card offers a
rule for. The rules themselves (checking, indexing, deciding) are ``tool_rules``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence


def call_paths(raw_paths: Iterable[str], workspace: str) -> list[str]:
    """Each path a call names, as the rules see it: literal (``..`` folded) and real."""
    out: list[str] = []
    for raw in raw_paths:
        if not isinstance(raw, str) or "\0" in raw:
            continue
        joined = os.path.join(workspace, os.path.expanduser(raw))
        plain = os.path.normpath(os.path.abspath(joined))
        real = os.path.realpath(plain)
        for path in (plain, real):
            if path not in out:
                out.append(path)
    return out


#: Argument fields that name a path, in the built-in tools' argument models.
PATH_FIELDS = ("path", "source", "destination", "cwd")


def named_paths(args: object, *, default_cwd: bool) -> list[str]:
    """The raw paths in a built-in tool's parsed arguments (``paths`` for many files). A
    command without ``cwd`` runs in the workspace: ``"."`` stands for it."""
    found: list[str] = []
    for name in PATH_FIELDS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value:
            found.append(value)
    many = getattr(args, "paths", None)
    if isinstance(many, list):
        found.extend(p for p in many if isinstance(p, str))
    if default_cwd and not found:
        found.append(".")
    return found


def rule_folder(paths: Sequence[str], workspace: str) -> str | None:
    """The folder a card offers to always allow (or never): the workspace when every real
    path is in it, else the deepest folder holding them all; None without paths."""
    if not paths:
        return None
    try:
        common = os.path.commonpath(list(paths))
    except ValueError:  # different drives
        return None
    ws = os.path.normpath(workspace)
    if _inside(common, ws):
        return ws
    folder = common if os.path.isdir(common) and len(paths) > 1 else os.path.dirname(common)
    # A rule on the root would cover every path: none is offered (the card then offers none).
    return None if not folder or os.path.dirname(folder) == folder else folder


def _inside(path: str, folder: str) -> bool:
    p, f = os.path.normcase(path), os.path.normcase(folder)
    return p == f or p.startswith(f.rstrip(os.sep) + os.sep)
