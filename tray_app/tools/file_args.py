"""Argument models of the file tools: their JSON schema is exactly what the model sees.

Names and defaults follow the original tool table. Small models send ``"utf8"``,
``"ts"`` for ``".ts"``, a string where a list is expected, or a line number of 0: such slips are
mended here instead of failing the call. Numeric caps are clamped, not refused.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from tray_app.tools.text_codec import normalize_name

PATH_HELP = "Absolute path, or a path relative to the workspace folder. '~' means the home folder."


def _encoding(value: Any) -> Any:
    """Any Python text codec name, ``base64``, or None (detect); unknown names fail here."""
    if isinstance(value, str):
        return normalize_name(value)
    return value


def _clamp(value: Any, low: int, high: int) -> Any:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            return value  # pydantic reports it
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        # JSON's Infinity or 1e999: clamp like any other huge number; NaN is left to pydantic.
        return value if math.isnan(value) else (high if value > 0 else low)
    return max(low, min(high, int(value)))


def _extension(text: str) -> str:
    text = text.strip().lower()
    if text.startswith("*."):
        text = text[1:]
    return text if text.startswith(".") or not text else "." + text


class ReadFileArgs(BaseModel):
    path: str = Field(description="The file to read. " + PATH_HELP)
    encoding: str | None = Field(
        default=None,
        description=(
            "How to decode the file. Leave it out to detect (a byte-order mark means UTF-8 or "
            "UTF-16, else utf-8); or utf-8, utf-16, latin1, another codec name such as cp1252, "
            "or base64 for binary files."
        ),
    )
    start_line: int | None = Field(
        default=None, description="First line to return (1 = first line of the file)."
    )
    end_line: int | None = Field(
        default=None,
        description="Last line to return (inclusive). Without it at most 500 lines are returned.",
    )

    @field_validator("encoding", mode="before")
    @classmethod
    def _enc(cls, value: Any) -> Any:
        return _encoding(value)

    @field_validator("start_line", "end_line", mode="before")
    @classmethod
    def _line(cls, value: Any) -> Any:
        return _clamp(value, 1, 10**9)


class WriteFileArgs(BaseModel):
    path: str = Field(description="The file to create or overwrite. " + PATH_HELP)
    content: str = Field(description="The complete new content of the file (up to 5 MB).")
    encoding: str | None = Field(
        default=None,
        description=(
            "Leave it out to keep an existing file's encoding, byte-order mark and line endings "
            "(a new file is utf-8); or name one, such as utf-8 or utf-16."
        ),
    )

    @field_validator("encoding", mode="before")
    @classmethod
    def _enc(cls, value: Any) -> Any:
        return _encoding(value)


class ListDirectoryArgs(BaseModel):
    path: str = Field(description="The folder to list. " + PATH_HELP)
    recursive: bool = Field(default=False, description="Also list the contents of sub-folders.")
    max_depth: int = Field(
        default=3, description="How many folder levels to list when recursive is true (1-10)."
    )
    include_hidden: bool = Field(
        default=False, description="Also list hidden entries (names starting with '.')."
    )
    filter_extension: str | None = Field(
        default=None, description="Only list files with this extension, for example '.py'."
    )

    @field_validator("max_depth", mode="before")
    @classmethod
    def _depth(cls, value: Any) -> Any:
        return _clamp(value, 1, 10)

    @field_validator("filter_extension", mode="before")
    @classmethod
    def _ext(cls, value: Any) -> Any:
        return _extension(value) or None if isinstance(value, str) else value


class SearchFilesArgs(BaseModel):
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


class CreateDirectoryArgs(BaseModel):
    path: str = Field(
        description="The folder to create (missing parents are created). " + PATH_HELP
    )


class DeleteFileArgs(BaseModel):
    path: str = Field(
        description="The file or folder to delete (it goes to the trash). " + PATH_HELP
    )
    recursive: bool = Field(
        default=False,
        description="Required to delete a folder that is not empty, with everything in it.",
    )
