"""An operating system's reason (an ``OSError``'s errno) said in the user's language.

A sentence that wraps an OS error keeps the OS's English text (``strerror``) for the model, the
logs and ``--json``. Beside it, ``os_params`` gives ``os``: the errno's code from
``tool_errors`` (the table the tools' own failures use), so the page and the terminal say why
in the user's language, both from ``os_reason.<code>`` in ``web/locales`` (one copy). An errno
without a code keeps the OS's text, quoted as a detail (``os_reason.other``).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Mapping

from tray_app.i18n import section
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

_CODES = frozenset(ERRNO_CODES.values())


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
    """The reason in ``params`` (``os_params``) in ``language``: its code's words (the page's
    ``os_reason.<code>``, read from ``web/locales``), else the OS's text (quoted in Chinese,
    where it stays English); the OS's text alone when the locale cannot be read."""
    words = section("os_reason", language)
    code = params.get("os")
    if code in _CODES and isinstance(code, str) and code in words:
        return words[code]
    detail = shown(params.get("detail", ""))
    try:
        return words.get("other", "{detail}").format(detail=detail)
    except (KeyError, IndexError, ValueError):  # a damaged template: the OS's text
        return detail


def os_error_text(exc: BaseException, shown: Callable[[object], str] = str) -> str:
    """``str(exc)`` with an OS error's file names as ``shown`` gives them. Python's own text
    puts them in ``repr``, which writes a direction override as the escape ``\\u202e`` while
    the same path elsewhere in a sentence shows the character (or, written out, ``⟨U+202E⟩``):
    one path must read the same everywhere in a reason."""
    if not isinstance(exc, OSError) or exc.strerror is None or exc.filename is None:
        return str(exc)
    text = f"[Errno {exc.errno}] {exc.strerror}: '{shown(exc.filename)}'"
    if exc.filename2 is not None:
        text += f" -> '{shown(exc.filename2)}'"
    return text
