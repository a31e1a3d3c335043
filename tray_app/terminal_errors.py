# ruff: noqa: E501  (the table keeps one text a line, as in web/locales)
"""A failed tool call's reason as the terminal prints it, in its language.

In English the tool's own sentence is printed (what the model got); in Chinese the text of its
``code`` (``tool_errors``) with its ``params``. The page has the same texts (web/locales
``tool_error.*``); ``tests/test_tool_errors.py`` keeps the two equal and complete. Every value
that came from a file name, a server or a model has its control, invisible and direction
characters written out (``⟨U+202E⟩``), so it cannot rewrite the terminal or reorder the line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from tray_app.undo_reasons import reason_text, unflat

#: ``tool_error.<code>`` of web/locales/zh-CN.json.
TOOL_ERROR_ZH: dict[str, str] = {
    "stopped": "已取消：你停止了回答",
    "stopped_running": "已取消：你停止了回答；它当时仍在运行，可能仍会完成",
    "not_run_denied": "未执行：你拒绝了此操作",
    "not_run_timeout": "未执行：确认超时未回应，视为拒绝",
    "not_run_cancelled": "未执行：已取消",
    "not_run_rule": "未执行：你的权限规则禁止 {tool}",
    "not_run_rule_folder": "未执行：你的权限规则禁止在 {folder} 中使用 {tool}",
    "read_only_mode": "未执行：只读模式下不进行任何更改",
    "target_kept_changing": "未执行：每次确认后目标都发生了变化（{n} 次）",
    "command_exit": "命令退出，退出码 {code}",
    "command_timed_out": "命令在 {ms} 毫秒后超时；它和它启动的所有进程都已停止",
    "command_cancelled": "命令已取消；它和它启动的所有进程都已停止",
    "command_disabled": "运行命令已关闭（设置 › 工具 › run_command）",
    "repeated": "未执行：本次回答中此调用已执行过 {n} 次，结果没有变化",
    "round_limit": "未执行：本次回答已达到工具轮数上限",
    "too_many_calls": "未执行：一轮中的调用过多（上限为 {limit} 个）",
    "target_changed": "未执行：你确认后目标发生了变化",
    "failed_inside_app": "{tool} 在应用内部出错（{error}）；详情见应用的日志文件",
    "tools_disabled": "工具已关闭",
    "not_run": "{tool} 未执行",
    "unknown_tool": "未知的工具：{name}",
    "tool_not_enabled": "工具 {name} 已关闭",
    "invalid_arguments": "{tool} 的参数无效：{detail}",
    "argument_missing": "{tool}：缺少参数 {field}",
    "argument_unknown": "{tool}：没有名为 {field} 的参数",
    "argument_wrong_type": "{tool}：参数 {field} 的类型不对",
    "argument_not_a_choice": "{tool}：参数 {field} 必须是 {choices} 之一",
    "argument_too_long": "{tool}：参数 {field} 的长度超过 {limit}",
    "argument_too_short": "{tool}：参数 {field} 的长度不足 {limit}",
    "argument_out_of_range": "{tool}：参数 {field} 超出允许的范围",
    "failed_unexpectedly": "{tool} 意外失败：{detail}",
    "path_not_text": "路径必须是文本",
    "path_empty": "路径为空",
    "path_too_long": "路径超过 {limit} 个字符",
    "path_control_char": "路径 {path} 含有控制字符（例如 NUL 或换行符）",
    "path_bad_chars": "路径 {path} 含有不能用于文件名的字符",
    "path_is_url": "{path} 是网址；文件工具只接受本地路径",
    "path_windows_refused": "路径 {path} 被拒绝：{problem}",
    "path_secret_config": "{path} 因其所在位置而保存着凭据（例如 .kube/config、.config/gcloud 或浏览器配置文件中的 Cookies），不允许访问",
    "path_secret_name": "{path} 指向 {name}，它看起来是机密文件或凭据文件夹（密钥、密码、.env、.aws、浏览器登录数据），不允许访问",
    "path_outside": "{path} 不在允许的文件夹内（{roots}）",
    "path_link_outside": "{path} 经由符号链接指向允许的文件夹之外（{roots}）",
    "path_in_system_folder": "{path} 位于系统文件夹 {folder} 内，不允许访问",
    "path_in_credential_folder": "{path} 位于凭据文件夹 {folder} 内，不允许访问",
    "path_in_blocked_folder": "{path} 位于已屏蔽的文件夹 {folder} 内，不允许访问",
    "path_in_app_folder": "{path} 位于本应用自己的文件夹 {folder} 内，不允许访问",
    "path_in_git": "{path} 位于 .git 文件夹内；不允许更改其中的文件（那里的钩子和配置可以运行代码）",
    "path_hard_links": "{path} 有 {n} 个硬链接；它的其他名称可能在允许的文件夹之外，因此不使用它",
    "path_climbs": "{path} 在一个不存在的文件夹之后使用了“..”",
    "path_link_loop": "{path} 陷入符号链接循环",
    "file_not_found": "找不到文件：{path}",
    "folder_not_found": "找不到文件夹：{path}",
    "path_not_found": "找不到：{path}",
    "permission_denied": "没有权限：{path}",
    "not_permitted": "不允许的操作：{path}",
    "is_a_folder": "{path} 是文件夹",
    "not_a_folder_on_path": "路径中的某一部分不是文件夹：{path}",
    "too_many_links": "符号链接过多：{path}",
    "name_too_long": "名称过长：{path}",
    "disk_full": "磁盘空间不足：{path}",
    "read_only_disk": "磁盘为只读：{path}",
    "folder_not_empty": "文件夹不是空的：{path}",
    "already_exists": "已经存在：{path}",
    "in_use": "正在使用中：{path}",
    "other_device": "位于另一个磁盘上：{path}",
    "os_error": "{path}：{reason}",
    "not_a_file_folder": "{path} 是文件夹，不是文件",
    "not_a_regular_file": "{path} 不是普通文件；只读取普通文件",
    "not_a_folder_file": "{path} 是文件，不是文件夹",
    "not_a_folder": "{path} 不是文件夹",
    "became_link": "{path} 变成了符号链接；未读取",
    "file_too_large": "{path} 太大（{size}）；最多读取 {max_size} 的文件",
    "binary_file": "{path} 看起来是二进制文件（{size}）",
    "lines_need_text": "按行读取需要文本编码",
    "lines_reversed": "结束行（{end}）在起始行（{start}）之前",
    "start_past_end": "第 {start} 行超出了 {path} 的末尾（共 {n} 行）",
    "none_readable": "所有文件都无法读取",
    "not_utf16": "{path} 不是 UTF-16 文本（没有字节顺序标记，也没有零字节）",
    "invalid_text": "{path} 不是有效的 {encoding} 文本（第 {byte} 字节）；可尝试编码 {other} 或 base64",
    "unencodable_text": "{path}：文本中有 {encoding} 无法表示的字符（{chars}）；未写入任何内容",
    "encoding_not_writable": "{path} 未更改：{encoding} 无法逐字节写回文本（会改写未修改的部分）；请使用能逐字节写回的编码：{encodings}",
    "encoding_changes_bytes": "{path} 未更改：按 {encoding} 读取再写回后，字节会发生变化（从第 {byte} 字节起），编辑会改动未触及的部分；请指定能保留每个字节的编码，例如 latin1",
    "base64_is_for_reading": "base64 只用于读取二进制文件；写入需要文本",
    "changed_after_approval": "你确认此调用后 {path} 发生了变化；未做任何更改",
    "changed_while_editing": "{path} 在编辑过程中发生了变化；未更改",
    "ends_with_separator": "{path} 以路径分隔符结尾；需要文件路径",
    "not_writable_kind": "{path} 不是普通文件；只写入普通文件",
    "content_too_large": "写入 {path} 的内容太大（{size}）；最多写入 {max_size}",
    "folders_left_behind": "{path} 未写入；已创建的文件夹 {folders} 仍然保留",
    "exists_not_folder": "{path} 已存在，且不是文件夹",
    "edit_too_large": "{path} 大于 {max_size}；不进行编辑",
    "edit_binary": "{path} 看起来是二进制文件；只编辑文本文件",
    "edit_old_text_empty": "{path} 未更改：要替换的文本为空",
    "edit_old_text_blank": "{path} 未更改：要替换的文本只有空白字符",
    "edit_many_matches": "{path} 未更改：要替换的文本匹配了 {n} 处（第 {lines} 行）；必须恰好匹配一处",
    "edit_too_many_matches": "{path} 未更改：要替换的文本匹配了超过 {n} 处（第 {lines} 行）；必须恰好匹配一处",
    "edit_no_match": "{path} 未更改：找不到要替换的文本（最接近的是第 {first}–{last} 行）",
    "edit_no_match_empty_file": "{path} 未更改：找不到要替换的文本（文件为空）",
    "edit_no_change": "{path} 未更改：这些编辑不会改变文本",
    "edit_would_grow": "{path} 会超过 {max_size}；未更改",
    "move_protected": "{path} 是允许的文件夹、主文件夹或工作区（或包含它们）；不能移动",
    "move_same_place": "{path} 已经在 {destination}；无需移动",
    "move_into_itself": "{path} 不能移动到它自身之内（{destination}）",
    "move_onto_folder": "{destination} 是已有的文件夹；不会替换文件夹",
    "move_destination_exists": "{destination} 已存在（{size}）；只有要求覆盖时才会替换",
    "move_destination_appeared": "{destination} 在此期间出现或发生了变化；未移动任何内容",
    "move_other_disk": "{path} 和 {destination} 在不同的磁盘上；只能在同一磁盘内移动",
    "delete_protected": "{path} 是允许的文件夹、主文件夹或工作区（或包含它们）；不能删除",
    "delete_folder_not_empty": "{path} 是非空文件夹；要连同其中所有内容一起删除，需要明确要求",
    "delete_holds_secret": "无法删除 {path}：其中的 {entry} 看起来是机密文件",
    "delete_holds_blocked": "无法删除 {path}：其中包含受保护的文件夹 {entry}",
    "delete_holds_hard_link": "无法删除 {path}：其中的 {entry} 有多个硬链接",
    "delete_too_many": "{path} 包含超过 {limit} 项；太多，无法安全地检查和删除",
    "delete_unchecked": "无法完整检查 {path}；未删除",
    "delete_partly_done": "{path} 的一部分在出错前已被删除；撤销无法恢复部分删除的文件夹",
    "undo_unavailable": "{tool} 在更改任何内容之前被拒绝：无法保留撤销副本（{reason}）",
    "command_refused_nul": "已拒绝：命令中含有 NUL 字节",
    "command_refused_too_long": "已拒绝：命令超过 {limit} 个字符",
    "command_refused_empty": "已拒绝：命令为空",
    "command_refused_destroys": "已被命令黑名单拒绝：{name} 会破坏磁盘或数据",
    "command_refused_shutdown": "已被命令黑名单拒绝：{name} 会关闭计算机",
    "command_refused_accounts": "已被命令黑名单拒绝：{name} 会更改用户账户",
    "command_refused_eval": "已被命令黑名单拒绝：{name} 会运行动态生成的代码",
    "command_refused_fork_bomb": "已被命令黑名单拒绝：它看起来是 fork 炸弹",
    "command_refused_reverse_shell": "已被命令黑名单拒绝：它看起来是反向 shell",
    "command_refused_pipe_to_shell": "已被命令黑名单拒绝：它通过管道或重定向把内容交给 shell 执行（如 curl ... | sh）",
    "command_refused_feeds_shell": "已被命令黑名单拒绝：它把下载或生成的代码交给 shell 执行",
    "command_refused_exec_redirect": "已被命令黑名单拒绝：它重定向了 shell 自身的输出（exec >）",
    "command_refused_raw_disk": "已被命令黑名单拒绝：它直接写入磁盘设备",
    "command_refused_root": "已被命令黑名单拒绝：它会删除根目录",
    "command_refused_recursive_delete": "已被命令黑名单拒绝：对 {target} 递归执行 {name} 会删除系统或主文件夹",
    "command_refused_dd": "已被命令黑名单拒绝：dd 可能覆盖磁盘",
    "command_refused_chmod": "已被命令黑名单拒绝：chmod 777 会让所有人都能写入文件",
    "command_refused_chown": "已被命令黑名单拒绝：chown root 会把文件交给管理员",
    "command_refused_crontab": "已被命令黑名单拒绝：crontab 会更改计划任务（只允许 crontab -l）",
    "command_refused_systemctl": "已被命令黑名单拒绝：systemctl enable/disable 会更改系统服务",
    "command_refused_format": "已被命令黑名单拒绝：format 会擦除驱动器",
    "command_cwd_not_folder": "命令未运行：{path} 不是文件夹",
    "command_sandbox_no_bwrap": "命令未运行：沙箱已开启，但未安装 bubblewrap（bwrap）；请安装 bubblewrap 软件包，或在设置中关闭沙箱",
    "command_sandbox_missing": "命令未运行：沙箱已开启，但缺少 sandbox-exec",
    "command_sandbox_unsupported": "命令未运行：沙箱已开启，但此系统没有命令沙箱；要在沙箱外运行命令，请在设置中关闭沙箱",
    "command_sandbox_failed": "命令未运行：无法建立沙箱（{reason}）",
    "command_cancelled_before_start": "命令开始前已取消",
    "mcp_timed_out": "{server} 未在 {seconds} 秒内回应 {tool}；已取消",
    "mcp_server_stopped": "工具服务器 {server} 在运行 {tool} 时停止了（正在重新启动）；此调用可能已完成，也可能没有",
    "mcp_sse_too_large": "{server} 对 {tool} 的回答超过 {megabytes} MB，超出了 SSE 连接能传送的上限（该服务器正在重新启动）；请请求更少的内容，或改用该服务器的 Streamable HTTP 地址（上限 64 MB）",
    "mcp_call_failed": "{server} 无法运行 {tool}：{detail}",
    "mcp_cancelled": "{server}：{tool} 已取消",
    "mcp_reported_error": "{server} 上的 {tool} 报告了错误：{detail}",
    "undo_changed_created": "在智能体更改之后，{path} 处又新建了内容",
    "undo_changed_removed": "在智能体更改之后，{path} 已被删除",
    "undo_changed_link": "{path} 现在是符号链接",
    "undo_changed_modified": "在智能体更改之后，{path} 又被修改过",
    "undo_changed_exists": "{path} 处现在已有内容",
    "undo_changed_folder": "{path} 现在是文件夹",
    "undo_changed_not_empty": "{path} 已不再是空文件夹",
    "undo_link_on_the_way": "通往 {path} 的路径上现在有链接或文件",
    "undo_folder_gone": "文件夹 {path} 已不存在",
    "undo_copy_damaged": "撤销日志中保存的副本已损坏",
    "undo_os_error": "恢复 {path} 失败：{reason}",
    "undo_not_undoable": "{path} 的 {tool} 无法撤销：{reason}",
    "undo_nothing": "没有可以撤销的更改",
    "undo_call_already_undone": "此调用的更改已经撤销过了",
    "undo_call_unknown": "撤销日志中没有此调用的更改",
    "undo_change_did_nothing": "更改 {change} 没有改动任何内容",
    "undo_change_already_undone": "更改 {change} 已经撤销过了",
    "undo_change_unknown": "撤销日志中没有更改 {change}",
    "undo_turn_unknown": "撤销日志中没有来自轮次 {turn} 的更改",
    "undo_turn_already_undone": "轮次 {turn} 的所有更改都已撤销过了",
    "undo_turn_later_kept": "本轮之后对 {path} 的更改没有撤销，所以这一项也保留不动",
    "undo_journal_unreadable": "无法读取撤销日志（{reason}）",
}

_UNITS = ("B", "KB", "MB", "GB", "TB")


def written_out(value: object, *, keep_line_breaks: bool = False) -> str:
    """``value`` as text with control, format (bidi, zero-width) and separator characters
    written out as ``⟨U+XXXX⟩``; any other character of any script is kept. A line break is
    written out too (``⟨U+000A⟩``): a name printed in a row or an echo must stay on its line;
    only text meant to span lines (a tool's sentence with its nearest lines) keeps it."""
    text = str(value)
    out: list[str] = []
    for index, char in enumerate(text):
        kept = keep_line_breaks and char == "\n"
        hidden = unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs") and not kept
        if hidden and not (char == _ZWJ and _joins_emoji(text, index)):
            out.append(f"⟨U+{ord(char):04X}⟩")
        else:
            out.append(char)
    return "".join(out)


#: What a model's answer may not send to a terminal: C0 and C1 controls but line ends and tabs
#: (ESC starts sequences that move the cursor, retitle the window or write the clipboard; CR
#: overwrites a line) and bidi overrides, embeddings and isolates (they reverse what follows).
_UNSAFE_IN_ANSWER = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def answer_for_terminal(text: str) -> str:
    """A model's answer or thinking as a terminal may show it: those characters written out as
    ``⟨U+001B⟩``, everything else (line ends, tabs, any script, emoji) kept."""
    plain = text.replace("\r\n", "\n")  # a Windows line end is a line end, not an overwrite
    return _UNSAFE_IN_ANSWER.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", plain)


_ZWJ = "\u200d"


def _joins_emoji(text: str, index: int) -> bool:
    """A zero-width joiner inside an emoji sequence (👩🏽‍💻) is part of the picture."""
    before = text[index - 1] if index else ""
    if before == "\ufe0f" or "\U0001f3fb" <= before <= "\U0001f3ff":
        before = text[index - 2] if index > 1 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    return bool(before and after) and all(unicodedata.category(c) == "So" for c in (before, after))


def _size(value: float) -> str:
    for unit in _UNITS:
        if value < 1024 or unit == _UNITS[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _params(raw: object) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, str] = {}
    for key, value in raw.items():
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        out[str(key)] = _size(value) if number and str(key).endswith("size") else written_out(value)
    code, inner = unflat(raw)
    if code and "reason" in out:  # the journal's reason, by its own code (undo_reasons)
        out["reason"] = reason_text(code, inner, out["reason"], "zh-CN", written_out)
    return out


def failure_text(result: Mapping[str, Any], language: str = "en") -> str:
    """A failed call's reason in the terminal's language (an unknown code: the sentence)."""
    template = TOOL_ERROR_ZH.get(str(result.get("code")))
    if template is not None and language.lower().startswith("zh"):
        try:
            return template.format_map(_params(result.get("params")))
        except (KeyError, IndexError, ValueError):
            pass  # parameters that do not fit (an older record): the tool's own sentence
    return written_out(result.get("error", "failed"), keep_line_breaks=True)


def coded_text(exc: BaseException, language: str = "en") -> str:
    """A raised ``CodedError``'s reason in ``language`` (another error: its sentence)."""
    code = getattr(exc, "code", None)
    coded = {"error": str(exc) or "failed", "code": code, "params": getattr(exc, "params", None)}
    return failure_text(coded, language)


def undo_failure_text(exc: BaseException, language: str = "en") -> str:
    """Why an undo the user asked for was not done (Core's coded ``UndoFailed`` or
    ``ChangeNotFound``): the English sentence, or in Chinese "无法撤销：" and its code's text."""
    text = coded_text(exc, language)
    if language.lower().startswith("zh") and str(getattr(exc, "code", None)) in TOOL_ERROR_ZH:
        return f"无法撤销：{text}"
    return text


#: The file's nearest lines under a failed edit's Chinese sentence: as many as fit a glance.
NEAREST_SHOWN = 12


def nearest_lines(result: Mapping[str, Any], language: str = "en") -> str:
    """A failed edit's nearest lines (``params.nearest``), indented under its Chinese sentence,
    as the card shows them; the English sentence already holds them. Bounded, controls written
    out."""
    params = result.get("params")
    nearest = params.get("nearest") if isinstance(params, Mapping) else None
    chinese = language.lower().startswith("zh") and str(result.get("code")) in TOOL_ERROR_ZH
    if not chinese or not isinstance(nearest, str) or not nearest:
        return ""
    lines = nearest.splitlines()
    shown = [f"\n    {written_out(line)}" for line in lines[:NEAREST_SHOWN]]
    if len(lines) > NEAREST_SHOWN:
        shown.append("\n    …")
    return "".join(shown)
