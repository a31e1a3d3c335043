"""The one line the terminal prints under an approval: what the call would do, in its language.

The page says the same facts from ``web/locales`` (``approval.*``); the terminal has no locale
files, so its English and Chinese words sit here. A path, server or tool name in the line comes
from a model or a server: its control and direction characters are written out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tray_app.base.messages import (
    AnyPreview,
    CommandPreview,
    DiffPreview,
    FilePreview,
    GitCommitPreview,
    McpPreview,
    MovePreview,
    NewFilePreview,
    TreePreview,
    read_preview,
)
from tray_app.i18n import section, written_out


def _words(language: str) -> Mapping[str, str]:
    return section("terminal.preview", language)


def approval_heading(tool: str, risk: str, language: str = "en") -> str:
    """ "approval needed: write_file (write)" in the terminal's language."""
    words = _words(language)
    return words["ask"].format(tool=written_out(tool), risk=words.get(f"risk_{risk}", risk))


def preview_summary(preview: Mapping[str, Any] | AnyPreview, language: str = "en") -> str:
    """One line of what the call would do: sizes, counts, or where a command runs."""
    shown = read_preview(preview)
    line = _summary(shown, language)
    if line and (shown.model_extra or {}).get("json_content"):
        line += _words(language)["json_content"]
    return line


def _summary(shown: AnyPreview, language: str) -> str:
    words = _words(language)
    if isinstance(shown, NewFilePreview):
        return words["new_file"].format(size=shown.size_after)
    if isinstance(shown, DiffPreview) and shown.changes is False:
        return words["dry_run"]
    if isinstance(shown, DiffPreview):
        how = f" ({shown.format})" if shown.format else ""
        return words["overwrites"].format(before=shown.size_before, after=shown.size_after, how=how)
    if isinstance(shown, MovePreview):
        key = "replaces" if shown.deletes else "moves"
        return words[key].format(
            path=written_out(shown.path), destination=written_out(shown.destination)
        )
    if isinstance(shown, TreePreview | FilePreview):
        count = shown.count if "count" in shown.model_fields_set else None
        if count:
            return words["deletes_items"].format(count=count)
        return words["deletes_bytes"].format(size=shown.size)
    if isinstance(shown, McpPreview):
        what = words["mcp_changes"]
        if shown.destructive:
            what = words["mcp_destructive"]
        elif shown.read_only_hint:
            what = words["mcp_read_only"]
        server, tool = written_out(shown.server), written_out(shown.mcp_tool)
        return words["mcp"].format(server=server, tool=tool, what=what)
    if isinstance(shown, GitCommitPreview):
        return words["git_commit"].format(
            n=shown.file_count,
            a=shown.added,
            d=shown.deleted,
            path=written_out(shown.path or ""),
            branch=written_out(shown.branch),
        )
    if isinstance(shown, CommandPreview):
        key = "runs_sandboxed" if shown.sandboxed else "runs_unsandboxed"
        return words[key].format(cwd=written_out(shown.cwd))
    return ""


def approval_prompt(
    tool: str,
    can_remember: bool,
    language: str = "en",
    *,
    rules: bool = False,
    rule_folder: str | None = None,
) -> str:
    """The question under an approval; the answers stay y / N / a (and, with ``rules``,
    always / never: a lasting rule for ``rule_folder``) in every language."""
    words = _words(language)
    remember = words["remember"] if can_remember else ""
    where = written_out(rule_folder) if rule_folder else words["anywhere"]
    lasting = words["rules"].format(tool=written_out(tool), where=where) if rules else ""
    return words["prompt"].format(tool=written_out(tool), remember=remember, rules=lasting)
