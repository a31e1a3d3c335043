"""The payload each ``Bridge`` command accepts: one pydantic model per shape, strict.

Kept apart from ``bridge.py`` (the commands) so each module stays small. Every model refuses
unknown keys and caps every string, so a page bug or a hostile payload fails validation with
``invalid_request`` instead of reaching ``Core``. The names keep their leading underscore: they
are the bridge's private business, not part of the page's API.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_TEXT = 200_000  # characters in one user message
MAX_IMAGES = 8
MAX_IMAGE_B64 = 15_000_000  # about 11 MB per image


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", str_max_length=MAX_TEXT)


class _Empty(_Payload):
    pass


IdStr = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.:-]+$")]


class _SessionId(_Payload):
    session_id: IdStr


class _OpenSession(_Payload):
    session_id: IdStr
    limit: int | None = Field(default=None, ge=1, le=1000)  # only the last messages


class _Messages(_Payload):
    session_id: IdStr
    before: IdStr | None = None  # the oldest message the page has
    limit: int = Field(default=50, ge=1, le=1000)


class _MaybeSession(_Payload):
    session_id: str | None = Field(default=None, max_length=100)


class _NewSession(_Payload):
    model: str | None = Field(default=None, max_length=300)
    workspace: str | None = Field(default=None, max_length=4096)


class _ListSessions(_Payload):
    query: str | None = Field(default=None, max_length=200)


class _UpdateSession(_Payload):
    session_id: IdStr
    title: str | None = Field(default=None, max_length=200)
    model: str | None = Field(default=None, max_length=300)
    workspace: str | None = Field(default=None, max_length=4096)


class _Send(_Payload):
    session_id: IdStr
    text: str = Field(min_length=1)
    images: list[str] = Field(default_factory=list, max_length=MAX_IMAGES)


class _Edit(_Payload):
    session_id: IdStr
    text: str = Field(min_length=1)


class _Decide(_Payload):
    call_id: IdStr
    approve: bool
    remember: bool = False
    rule: bool = False  # "Always allow <tool> in <folder>" / "Never"


class _Grant(_Payload):
    session_id: IdStr
    tool: str = Field(min_length=1, max_length=200)


class _CallId(_Payload):
    call_id: IdStr


class _ChangeId(_Payload):
    change_id: IdStr


class _TurnUndo(_Payload):
    """A whole turn's undo: the turn, and the changes the user chose to undo anyway."""

    turn_id: IdStr
    force_ids: list[IdStr] = Field(default_factory=list, max_length=10_000)


class _Pull(_Payload):
    name: str = Field(min_length=1, max_length=300, pattern=r"^[A-Za-z0-9_.:/@+-]+$")


class _ModelName(_Payload):
    name: str = Field(min_length=1, max_length=500)  # as the server lists it


class _ModelToolMode(_ModelName):
    mode: Literal["native", "prompt", "off"] | None = None  # None: automatic


class _Settings(_Payload):
    patch: dict[str, Any]


class _Export(_Payload):
    session_id: str = Field(min_length=1, max_length=200)
    format: Literal["markdown", "json"] = "markdown"


class _Link(_Payload):
    url: str = Field(min_length=1, max_length=8192)


class _McpPaste(_Payload):
    text: str = Field(min_length=1, max_length=MAX_TEXT)


class _ApiKey(_Payload):
    key: str = Field(max_length=4096)


class _McpSecret(_Payload):
    name: str = Field(min_length=1, max_length=128)
    secret: str = Field(max_length=8192)  # empty: remove it
