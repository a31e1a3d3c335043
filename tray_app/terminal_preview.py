"""The one line the terminal prints under an approval: what the call would do, in its language.

The page says the same facts from ``web/locales`` (``approval.*``); the terminal has no locale
files, so its English and Chinese words sit here. A path, server or tool name in the line comes
from a model or a server: its control and direction characters are written out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tray_app.messages import (
    AnyPreview,
    CommandPreview,
    DiffPreview,
    FilePreview,
    McpPreview,
    MovePreview,
    NewFilePreview,
    TreePreview,
    read_preview,
)
from tray_app.terminal_errors import written_out

PREVIEW_TEXT = {
    "en": {
        "new_file": "new file, {size} bytes",
        "dry_run": "dry run: shows the diff, changes nothing",
        "overwrites": "overwrites: {before} -> {after} bytes{how}",
        "replaces": "replaces the file at the destination: {path} -> {destination}",
        "moves": "moves: {path} -> {destination}",
        "deletes_items": "deletes {count} items",
        "deletes_bytes": "deletes {size} bytes",
        "mcp": "MCP server {server}: {tool} ({what})",
        "mcp_changes": "changes",
        "mcp_destructive": "destructive",
        "mcp_read_only": "read-only, says the server",
        "runs_sandboxed": "runs in {cwd} (sandboxed)",
        "runs_unsandboxed": "runs in {cwd} (not sandboxed)",
        "ask": "approval needed: {tool} ({risk})",
        "risk_read": "read",
        "risk_write": "write",
        "risk_destructive": "destructive",
        "risk_command": "command",
        "prompt": "Approve {tool}? [y/N{remember}{rules}] ",
        "remember": " / a = yes, don't ask again this chat",
        "rules": " / always, never = a lasting rule for {tool} in {where}",
        "anywhere": "any folder",
        "json_content": "; the content came as JSON data: written as formatted JSON text",
    },
    "zh-CN": {
        "new_file": "新文件，{size} 字节",
        "dry_run": "试运行：只显示差异，不做任何更改",
        "overwrites": "覆盖：{before} -> {after} 字节{how}",
        "replaces": "替换目标位置的文件：{path} -> {destination}",
        "moves": "移动：{path} -> {destination}",
        "deletes_items": "删除 {count} 项",
        "deletes_bytes": "删除 {size} 字节",
        "mcp": "MCP 服务器 {server}：{tool}（{what}）",
        "mcp_changes": "会做更改",
        "mcp_destructive": "破坏性操作",
        "mcp_read_only": "只读（服务器自称）",
        "runs_sandboxed": "在 {cwd} 中运行（在沙箱中）",
        "runs_unsandboxed": "在 {cwd} 中运行（不在沙箱中）",
        "ask": "需要确认：{tool}（{risk}）",
        "risk_read": "读取",
        "risk_write": "写入",
        "risk_destructive": "破坏性",
        "risk_command": "运行命令",
        "prompt": "允许 {tool}？[y=允许 / N=拒绝{remember}{rules}] ",
        "remember": " / a=允许，本次对话不再询问",
        "rules": " / always=始终允许、never=永不允许 {tool}（{where}，长期规则）",
        "anywhere": "任何文件夹",
        "json_content": "；内容是 JSON 数据：按格式化的 JSON 文本写入",
    },
}


def _words(language: str) -> dict[str, str]:
    return PREVIEW_TEXT["zh-CN" if language.lower().startswith("zh") else "en"]


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
