"""An operating system's reason (an ``OSError``'s errno) said in the user's language.

A sentence that wraps an OS error keeps the OS's English text (``strerror``) for the model, the
logs and ``--json``. Beside it, ``os_params`` gives ``os``: the errno's code from
``tool_errors`` (the table the tools' own failures use), so the page (``os_reason.<code>`` in
``web/locales``) and the terminal (``OS_REASON``) say why in the user's language. An errno
without a code keeps the OS's text, quoted as a detail (``os_reason.other``).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Mapping

from tray_app.tool_errors import ToolErrorCode

#: The code of an OS error by its errno; the tools' failures use the same codes.
ERRNO_CODES: dict[int, ToolErrorCode] = {
    errno.ENOENT: "path_not_found",
    errno.EACCES: "permission_denied",
    errno.EPERM: "not_permitted",
    errno.EISDIR: "is_a_folder",
    errno.ENOTDIR: "not_a_folder_on_path",
    errno.ELOOP: "too_many_links",
    errno.ENAMETOOLONG: "name_too_long",
    errno.ENOSPC: "disk_full",
    errno.EDQUOT: "disk_full",
    errno.EROFS: "read_only_disk",
    errno.ENOTEMPTY: "folder_not_empty",
    errno.EEXIST: "already_exists",
    errno.EBUSY: "in_use",
    errno.EXDEV: "other_device",
}

#: The reason alone (no path: the sentence around it names one), for the terminal and the tray.
OS_REASON: dict[str, dict[str, str]] = {
    "en": {
        "path_not_found": "not found",
        "permission_denied": "permission denied",
        "not_permitted": "operation not permitted",
        "is_a_folder": "it is a folder",
        "not_a_folder_on_path": "a part of the path is not a folder",
        "too_many_links": "too many symbolic links",
        "name_too_long": "the name is too long",
        "disk_full": "no space left on the disk",
        "read_only_disk": "the disk is read-only",
        "folder_not_empty": "the folder is not empty",
        "already_exists": "it already exists",
        "in_use": "it is in use",
        "other_device": "it is on another disk",
        "other": "{detail}",
    },
    "zh-CN": {
        "path_not_found": "找不到",
        "permission_denied": "没有权限",
        "not_permitted": "不允许的操作",
        "is_a_folder": "它是文件夹",
        "not_a_folder_on_path": "路径中的某一部分不是文件夹",
        "too_many_links": "符号链接过多",
        "name_too_long": "名称过长",
        "disk_full": "磁盘空间不足",
        "read_only_disk": "磁盘为只读",
        "folder_not_empty": "文件夹不是空的",
        "already_exists": "已经存在",
        "in_use": "正在使用中",
        "other_device": "位于另一个磁盘上",
        "other": "“{detail}”",
    },
}


def errno_code(exc: BaseException) -> ToolErrorCode | None:
    """The code of ``exc``'s errno, or None (not an OS error, or an errno without a code)."""
    number = getattr(exc, "errno", None)
    return ERRNO_CODES.get(number) if isinstance(number, int) else None


def os_params(exc: BaseException) -> dict[str, object]:
    """``detail`` (the OS's text) and, when the errno has a code, ``os``: a reason's params."""
    detail = getattr(exc, "strerror", None) or str(exc)
    code = errno_code(exc)
    return {"detail": detail, "os": code} if code else {"detail": detail}


def os_reason_text(
    params: Mapping[str, object], language: str, shown: Callable[[object], str] = str
) -> str:
    """The reason in ``params`` (``os_params``) in ``language``: its code's words, else the OS's
    text (quoted in Chinese, where it stays English)."""
    words = OS_REASON["zh-CN" if language.lower().startswith("zh") else "en"]
    code = params.get("os")
    if isinstance(code, str) and code in words and code != "other":
        return words[code]
    return words["other"].format(detail=shown(params.get("detail", "")))
