"""The chat messages every layer shares: roles, messages, the tool calls a model asks for and
the record of what happened to each call.

They sit at the bottom of the package tree (beside ``base/events.py`` and ``base/errors.py``)
because the store keeps them, the agent builds them, the providers put them on the wire and
Core hands them to the page; none of those should import another for a type.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

Role = Literal["system", "user", "assistant", "tool"]
ToolStatus = Literal["pending", "running", "success", "error", "cancelled"]


class ToolCall(BaseModel):
    """One call the model asked for. ``arguments_error`` is set when its JSON did not parse."""

    id: str | None = None
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_error: str | None = None


class ChatMessage(BaseModel):
    role: Role
    content: str = ""
    thinking: str = ""
    #: Base64 images, only sent to vision models: a user's attachments, or the images a tool
    #: returned (on its ``tool`` message; each provider puts them where its models see them).
    images: list[str] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_name: str | None = None
    tool_call_id: str | None = None


# ---- images: what the model is told about one it is not shown ---------------------------------

_IMAGE_MAGIC = (
    ("iVBOR", "image/png"),
    ("/9j/", "image/jpeg"),
    ("R0lG", "image/gif"),
    ("UklGR", "image/webp"),
)


def image_mime(data: str) -> str:
    """The type of a base64 image, sniffed from its first bytes (PNG when unknown)."""
    return next((mime for prefix, mime in _IMAGE_MAGIC if data.startswith(prefix)), "image/png")


def image_bytes(data: str) -> int:
    """The decoded size of a base64 string, from its length (no decoding)."""
    return max(0, len(data) * 3 // 4 - data[-2:].count("="))


def image_size_text(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def image_note(data: str, why: str) -> str:
    """``[image: image/png, 12 KB, not shown to this model]``: the model knows one was there."""
    return f"[image: {image_mime(data)}, {image_size_text(image_bytes(data))}, {why}]"


MAX_RESULT_IMAGES = 4  # images of one tool result that travel on its tool message
MAX_RESULT_IMAGE_CHARS = 6 * 1024 * 1024  # base64 characters of one image (4 MB decoded)
_IMAGE_TYPES = frozenset(mime for _, mime in _IMAGE_MAGIC)


def tool_result_images(result: Mapping[str, Any]) -> list[str]:
    """The images a tool returned (``card_images``: ``mime_type`` and base64 ``data``) for its
    tool message: a vision model is shown them, any other is told they were there
    (``agent/history.py``). Image types only, bounded in number and size."""
    images = result.get("card_images") if result.get("success") else None
    if not isinstance(images, list):
        return []
    return [
        image["data"]
        for image in images
        if isinstance(image, Mapping)
        and image.get("mime_type") in _IMAGE_TYPES
        and isinstance(image.get("data"), str)
        and 0 < len(image["data"]) <= MAX_RESULT_IMAGE_CHARS
    ][:MAX_RESULT_IMAGES]


# ---- previews: what an approval shows, one model per ``kind`` ---------------------------------
#
# A tool's preview is made by the tool (``tools/``) and checked into one of these at the
# toolbox, so the loop, the approval rules, the budgets, the notifications and the terminal read
# typed fields. The page receives ``preview_json(preview)``: exactly the keys the tool and the
# loop set, nothing added (``exclude_unset``). Fields a tool adds beyond these are kept
# (``extra="allow"``) so a new fact reaches the page before it is typed here.


#: A turn whose model calls no tool never reads a preview: their schemas are built at first use.
_DEFERRED = ConfigDict(extra="allow", defer_build=True)


class PersistenceRisk(BaseModel):
    """The target makes something run later (login, a new shell, VS Code, git): always asks."""

    model_config = _DEFERRED
    code: str
    text: str = ""
    path: str = ""


class BudgetOver(BaseModel):
    """The per-turn damage budget this call would go past: asks whatever the mode or grants."""

    model_config = _DEFERRED
    name: Literal["files_removed", "bytes_written", "commands"]
    limit: int | float
    used: int | float
    call: int | float
    text: str = ""


class _Preview(BaseModel):
    model_config = _DEFERRED

    tool: str | None = None
    text: str = ""
    truncated: bool | None = None
    path: str | None = None
    #: The facts a preview declares about its own call (``agent/approval.needs_confirmation``).
    exists: bool | None = None
    changes: bool | None = None  # False: a dry run, asks like a read
    deletes: bool | None = None  # it deletes or replaces a file: asks like a delete
    overwrites: bool | None = None  # asks in delete_only mode
    #: The network address the call goes to: asks, in every mode but full auto, unless the
    #: person wrote it in this chat (``agent/vouched_urls.py``).
    url: str | None = None
    #: The target's identity the approval is bound to (``tools/sandbox/binding.py``).
    binding: dict[str, Any] | None = None
    #: Set by the toolbox and the loop.
    persistence: PersistenceRisk | None = None
    budget: BudgetOver | None = None
    changed_since_shown: bool | None = None
    approval_round: int | None = None


class NewFilePreview(_Preview):
    kind: Literal["new_file"]
    size_before: int | None = None
    size_after: int = 0


class DiffPreview(_Preview):
    kind: Literal["diff"]
    size_before: int | None = None
    size_after: int | None = None
    format: str | None = None  # edit_file: the file's encoding, BOM and line endings
    edits: list[dict[str, Any]] | None = None  # edit_file: where each edit matched


class FilePreview(_Preview):
    """One file (or link) that would be deleted."""

    kind: Literal["file"]
    size: int = 0
    count: int = 1
    item: str | None = None  # what it is (file, symlink, ...): the page words it


class TreeRow(BaseModel):
    """One item below a folder that would be deleted, for the page to word and size."""

    model_config = _DEFERRED

    depth: int
    name: str
    kind: str
    size: int | None = None


class TreePreview(_Preview):
    """A folder that would be deleted with what is inside."""

    kind: Literal["tree"]
    size: int = 0
    count: int = 1
    #: The first items of ``text`` as data (at most ``TREE_MAX_LINES - 1``), and the OS's
    #: path separator the page puts after folder names.
    rows: list[TreeRow] | None = None
    sep: str | None = None


class PathPreview(_Preview):
    kind: Literal["path"]


class MovePreview(_Preview):
    kind: Literal["move"]
    destination: str = ""
    source_kind: str | None = None
    size: int | None = None
    replaced_size: int | None = None


class CommandPreview(_Preview):
    kind: Literal["command"]
    command: str = ""
    cwd: str | None = None
    sandboxed: bool | None = None
    timeout_ms: int | None = None
    blocked: str | None = None
    blocked_code: str | None = None  # ``blocked`` by its ``tool_errors`` code, for the card
    blocked_params: dict[str, Any] | None = None
    enabled: bool | None = None


class McpPreview(_Preview):
    kind: Literal["mcp"]
    server: str = ""
    mcp_tool: str = ""
    arguments_text: str = ""
    read_only_hint: bool | None = None
    destructive: bool | None = None


class GitCommitPreview(_Preview):
    """A commit that would be made: where, the message, and the files with line counts."""

    kind: Literal["git_commit"]
    branch: str = ""
    message: str = ""
    files: list[dict[str, Any]] | None = None
    file_count: int = 0
    added: int = 0
    deleted: int = 0


class NoPreview(_Preview):
    """The tool shows nothing before it runs (reads, tools without a preview)."""

    kind: Literal["none"]


class ErrorPreview(_Preview):
    """The call cannot run; ``text`` says why (in English, for the model), ``code`` and
    ``params`` (``tool_errors``) let the card say it in the user's language. It is refused
    without asking."""

    kind: Literal["error"]
    code: str | None = None  # a str, not the Literal: an older record's code still reads
    params: dict[str, Any] | None = None


class OtherPreview(_Preview):
    """A kind this version does not know (an older or newer record): shown by its text."""

    kind: str = ""


#: Every kind this version draws; a record may also hold one it does not know (``OtherPreview``).
KnownPreview = (
    NewFilePreview
    | DiffPreview
    | FilePreview
    | TreePreview
    | PathPreview
    | MovePreview
    | CommandPreview
    | McpPreview
    | GitCommitPreview
    | NoPreview
    | ErrorPreview
)
Preview = Annotated[KnownPreview, Field(discriminator="kind")]
AnyPreview = KnownPreview | OtherPreview
PREVIEW_KINDS = frozenset(
    get_args(model.model_fields["kind"].annotation)[0] for model in get_args(get_args(Preview)[0])
)


@functools.cache
def _preview_adapter() -> TypeAdapter[Any]:
    return TypeAdapter(Preview)


def parse_preview(data: Mapping[str, Any] | AnyPreview | None) -> AnyPreview:
    """A preview as its typed model. A dict from a tool, the store or an event; an unknown or
    missing ``kind`` becomes ``OtherPreview``. Raises ``ValidationError`` when a known kind has
    fields of the wrong type (a tool's bug)."""
    if isinstance(data, BaseModel):
        return data
    raw = dict(data or {})
    if raw.get("kind") in PREVIEW_KINDS:
        parsed: AnyPreview = _preview_adapter().validate_python(raw)
        return parsed
    return OtherPreview.model_validate({**raw, "kind": str(raw.get("kind") or "")})


def preview_json(preview: AnyPreview) -> dict[str, Any]:
    """What the store, the events and the page get: the keys that were set, as JSON values."""
    return preview.model_dump(mode="json", exclude_unset=True)


def with_facts(preview: AnyPreview, **facts: Any) -> AnyPreview:
    """The same preview with more facts set (``None`` removes a fact)."""
    kept = preview.model_dump(exclude_unset=True)  # python values: bindings compare as made
    raw = {k: v for k, v in kept.items() if k not in facts}
    raw.update({k: v for k, v in facts.items() if v is not None})
    return parse_preview(raw)


def read_preview(data: Mapping[str, Any] | AnyPreview | None) -> AnyPreview:
    """``parse_preview`` for readers (notifications, the terminal): never raises. A preview
    whose fields have the wrong types is read by its kind, text and path only."""
    try:
        return parse_preview(data)
    except ValidationError:
        raw = dict(data) if isinstance(data, Mapping) else {}
        text, path = raw.get("text"), raw.get("path")
        return OtherPreview(
            kind=str(raw.get("kind") or ""),
            text=text if isinstance(text, str) else "",
            path=path if isinstance(path, str) else None,
        )


class ToolCallRecord(BaseModel):
    """One tool call and everything that happened to it (the card's state).

    The one shape of a call: the store keeps it, Core's snapshots (``get_session``,
    ``get_messages``) send it, the ``tool_call`` event carries it whole as ``call`` and
    ``tool_call_update`` sends changed fields under these same names; the page and the terminal
    read it as it is (docs/architecture.md §3).
    """

    model_config = ConfigDict(defer_build=True)  # built at a chat's first tool call

    call_id: str
    session_id: str
    message_id: str
    provider_id: str | None = None  # the id the server gave the call, sent back with the result
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    risk: str | None = None
    preview: dict[str, Any] | None = None
    status: ToolStatus = "pending"
    decision: str | None = None
    decided_by: str | None = None
    result: dict[str, Any] | None = None
    duration_ms: float | None = None
    created_at: float = Field(default_factory=time.time)
    undoable: bool = False
