"""Write a chat export to a file the user chose: the default name and the atomic write.

The page's Export asks the popup process for a native save dialog, but the file is written
here, in the tray process, so a half-written export never replaces a good file and the error
the page shows is one line.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

from tray_app.base.atomic import atomic_write
from tray_app.base.errors import ExportFailed
from tray_app.os_reasons import errno_code

MAX_NAME = 80  # characters of the title kept in the file name

_EXTENSIONS = {"markdown": ".md", "json": ".json"}
_REMOVED = set('/\\:*?"<>|')


def default_name(title: str | None, fmt: str) -> str:
    """The chat title as a file name: CJK and emoji kept; path separators, characters
    Windows refuses and control/format characters (bidi overrides included) removed."""
    kept = "".join(
        c
        for c in unicodedata.normalize("NFC", title or "")
        if c not in _REMOVED and unicodedata.category(c)[0] != "C"
    )
    name = " ".join(kept.split()).strip(" .")[:MAX_NAME].strip(" .")
    return (name or "chat") + _EXTENSIONS.get(fmt, ".md")


def export_text(data: Any) -> str:
    """Core's export data as the file's text (JSON pretty-printed, non-ASCII kept)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=2)
    return text if text.endswith("\n") else text + "\n"


def write_export(path: Path, text: str) -> None:
    """Write atomically (a temp file in the same folder, then rename); the file stays private
    to the user (0600, as the temp file is made), since a chat can hold anything. ExportFailed
    with one line when it cannot be written."""
    target = path.expanduser()
    try:
        atomic_write(
            target, text.encode("utf-8"), private=True, prefix=f".{target.name}-", suffix=".tmp"
        )
    except OSError as exc:
        why = exc.strerror or str(exc)
        code = errno_code(exc)
        if code == "path_not_found":  # the file is new: it is its folder that is missing
            raise ExportFailed(
                f"cannot write {target}: {why}", code="folder_not_found", path=target.parent
            ) from None
        if code is None:
            raise ExportFailed(
                f"cannot write {target}: {why}", code="os_error", path=target, reason=why
            ) from None
        raise ExportFailed(f"cannot write {target}: {why}", code=code, path=target) from None
