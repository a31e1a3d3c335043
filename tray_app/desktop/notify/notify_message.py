"""What a notification says, in the UI language (the catalogue's ``notify.*``): the tool's
friendly name, the real
target (absolute path or command), and for changes a short summary ("+12 −3 lines",
"new file, 1.2 KB").

Targets are model-chosen text, so they are made safe to read before they are shown: invisible
and direction-changing characters (bidi controls such as U+202E, zero-width characters, line
separators, control characters) are written out visibly as ``⟨U+202E⟩`` so the user reads the
real target, and ``< > &`` become look-alikes because servers may read bodies as markup.
The tool names come from the tools' declarations and match the page's ``tool.*`` strings
(web/locales; a test keeps them equal). What is shown follows the preview's ``kind``.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping
from typing import Any

from tray_app.base.messages import (
    AnyPreview,
    CommandPreview,
    DiffPreview,
    McpPreview,
    MovePreview,
    NewFilePreview,
    TreePreview,
    read_preview,
)
from tray_app.i18n import resolve_language, t
from tray_app.tools.registry import builtin_titles

TARGET_MAX = 120
BUDGETS = ("files_removed", "bytes_written", "commands")


@functools.cache
def tool_names(lang: str) -> dict[str, str]:
    """The built-in tools' names for people, from the catalogue (``tool.<name>``)."""
    return builtin_titles(lang)


UNITS = ("B", "KB", "MB", "GB", "TB")


def language(setting: str | None) -> str:
    """The settings value (``system``, ``en``, ``zh-CN``) as one of the catalogue's languages."""
    return resolve_language(setting or "system")


def text(lang: str, key: str, **fields: Any) -> str:
    return t(f"notify.{key}", lang, **fields)


def tool_name(name: str, lang: str) -> str:
    """``write_file`` -> "Write file" in the user's language; an unknown (e.g. MCP) tool keeps
    its name, made readable."""
    known = tool_names(lang).get(name)
    return known or name.replace("__", ": ").replace("_", " ").strip().capitalize() or name


def human_size(size: int) -> str:
    value = float(size)
    for unit in UNITS:
        if value < 1024 or unit == UNITS[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def visible(value: str) -> str:
    """Invisible and direction-changing characters written out as ``⟨U+XXXX⟩``; markup made
    inert. Ordinary text of any script (CJK, emoji, accents) is kept as it is."""
    out: list[str] = []
    for char in value:
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Zl", "Zp", "Cs") or (
            category == "Zs" and char not in " \u3000"  # the CJK full-width space is ordinary
        ):
            out.append(f"⟨U+{ord(char):04X}⟩")
        else:
            out.append(char)
    return "".join(out).replace("&", "＆").replace("<", "‹").replace(">", "›")


def shorten(value: str, limit: int = TARGET_MAX) -> str:
    """Cut in the middle (the start says where, the end says what)."""
    if len(value) <= limit:
        return value
    keep = (limit - 1) // 2
    return value[:keep] + "…" + value[-keep:]


def diff_counts(diff: str) -> tuple[int, int] | None:
    """Added and removed lines of a unified diff; None when it is not one."""
    added = removed = 0
    hunks = False
    for line in diff.splitlines():
        if line.startswith("@@"):
            hunks = True
        elif line.startswith(("+++", "---")) and not hunks:
            continue
        elif line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return (added, removed) if hunks else None


def change_summary(preview: Mapping[str, Any] | AnyPreview, lang: str) -> str | None:
    """For a write or edit: "new file, 1.2 KB", "+12 −3 lines", or the sizes before and after
    when the diff was cut or could not be made."""
    shown = read_preview(preview)
    if isinstance(shown, NewFilePreview):
        return text(lang, "new_file", size=human_size(shown.size_after))
    if not isinstance(shown, DiffPreview):
        return None
    after = shown.size_after
    if shown.exists is False and after is not None:
        return text(lang, "new_file", size=human_size(after))
    counts = None if shown.truncated else diff_counts(shown.text)
    if counts == (0, 0) or shown.text.startswith("(no change)"):
        return text(lang, "no_change")
    if counts is not None:
        return text(lang, "lines", added=f"+{counts[0]}", removed=f"−{counts[1]}")
    if shown.size_before is not None and after is not None:
        return text(lang, "replaces", before=human_size(shown.size_before), after=human_size(after))
    return None


def describe_approval(
    name: str, args: dict[str, Any], preview: Mapping[str, Any] | AnyPreview, lang: str
) -> tuple[str, str]:
    """(title, body) for a waiting call. The target is the preview's absolute path (where the
    tool really works), else the argument; commands are shown whole, line breaks marked. What
    is said follows the preview's kind, never the tool's name."""
    shown = read_preview(preview)
    title = visible(text(lang, "ask_title", tool=tool_name(name, lang)))
    details: list[str] = []
    if isinstance(shown, McpPreview):  # an MCP server's tool: where it goes and with what
        compact = " ".join(shown.arguments_text.split())
        target = shorten(visible(f"{shown.server} → {shown.mcp_tool} {compact}"))
    elif isinstance(shown, CommandPreview):
        command = shown.command or str(args.get("command") or "")
        target = shorten(visible(command.replace("\r\n", "\n").replace("\n", " ⏎ ")))
        cwd = shown.cwd or args.get("cwd")
        if cwd:
            details.append(text(lang, "in_folder", cwd=shorten(visible(str(cwd)), 80)))
        if shown.sandboxed is False:
            details.append(text(lang, "not_sandboxed"))
    else:
        path = str(shown.path or args.get("path") or args.get("source") or "")
        target = shorten(visible(path))
        destination = shown.destination if isinstance(shown, MovePreview) else None
        destination = destination or args.get("destination")
        if destination:
            target += " → " + shorten(visible(str(destination)))
        summary = change_summary(shown, lang)
        if summary:
            details.append(summary)
        if isinstance(shown, TreePreview) and "count" in shown.model_fields_set:
            details.append(text(lang, "with_contents", count=shown.count - 1))
        if isinstance(shown, MovePreview) and shown.overwrites:
            details.append(text(lang, "replaces_existing"))
    if shown.persistence is not None:  # a file that runs something later: said first
        code = shown.persistence.code
        known = code in ("login", "shell", "vscode", "git_hook")
        details.insert(0, text(lang, f"persist_{code}" if known else "persist_other"))
    if shown.budget is not None:  # why it asks although the mode or a grant would not
        details.insert(0, text(lang, f"budget_{shown.budget.name}"))
    if shown.changed_since_shown:
        details.insert(0, text(lang, "changed_since_shown"))
    body = target or text(lang, "no_target")
    if details:
        body += "\n" + text(lang, "separator").join(details)
    return title, body


def turn_done(failed: bool, chat: str | None, message: str, lang: str) -> tuple[str, str]:
    chat_name = visible(chat) if chat else text(lang, "your_chat")
    if failed:
        return text(lang, "answer_failed"), shorten(f"{chat_name}: {visible(message)}", 200)
    return text(lang, "answer_ready"), shorten(chat_name, 200)
