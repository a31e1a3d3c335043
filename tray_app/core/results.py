"""What Core's commands return: plain JSON-able dicts, typed here once.

The page (through the bridge), the tray, notifications, the terminal and the tests read these
shapes; ``protocol.CoreApi`` names which command returns which. A record inside a result is
its store model's ``model_dump()`` (``Json``, with the model named next to the field), so the
record's fields are declared in one place, the store. A failure is never a result: commands
raise a class of ``tray_app.base.errors`` instead.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Json = dict[str, Any]
State = Literal["idle", "working", "waiting", "error"]


class SessionData(TypedDict):
    """``store.records.SessionRecord``."""

    id: str
    title: str
    model: str
    workspace: str | None
    created_at: float
    updated_at: float


class SessionHit(SessionData, total=False):
    match: Json  # where the query matched (``store.chats.search_chats``)


class SessionSnapshot(TypedDict):
    session: SessionData
    messages: list[Json]  # MessageRecord, oldest first
    tool_calls: list[Json]  # ToolCallRecord of those messages
    more_before: bool  # older messages exist (``get_messages``)
    running: bool
    workspace: str  # where its tools really work (the sandbox's choice), absolute


class MessagePage(TypedDict):
    messages: list[Json]
    tool_calls: list[Json]
    more_before: bool


class Deleted(TypedDict):
    deleted: str


class Exported(TypedDict):
    format: Literal["markdown", "json"]
    data: str | Json  # Markdown text, or the complete chat as JSON


class Repaired(TypedDict):
    changed: int


class TurnRef(TypedDict):
    turn_id: str
    session_id: str


class Stopped(TypedDict):
    stopped: int


class Decided(TypedDict):
    call_id: str
    approved: bool


class Status(TypedDict):
    state: State
    pending: int
    running: list[str]  # session ids with a running turn
    history_warning: str | None
    # its code, params and cause (history_warnings.warning_info), for the page's language
    history_warning_info: Json | None
    workspace: str  # where a new chat works (the sandbox's choice)
    # "en" or "zh-CN": what the language setting "system" means, decided as the tray, the
    # notifications and the terminal decide it (the web engine's own list can differ)
    system_language: str
    # every language there is a catalogue for, with its own name (i18n.language_names)
    languages: list[Json]


class ModelList(TypedDict):
    models: list[Json]  # providers.base.ModelInfo
    error: str | None  # why there are none (server down): shown, not raised


class ToolCheckDone(TypedDict):
    model: str
    result: str  # what the model did: "native", "text" or "none" (settings.ToolCheck)
    tool_mode: str  # the mode now in force for it: "native", "prompt" or "off"


class ServerStatus(TypedDict):
    reachable: bool
    version: str | None
    error: str | None
    code: str | None  # ``errors.error_code``: the page says it in the user's language


class PullStarted(TypedDict):
    started: bool
    model: str


class SettingsSaved(TypedDict):
    settings: Json  # store.settings.Settings


class ApiKeySaved(TypedDict):
    stored_in_keyring: bool
    warning: str | None  # English detail (logs, the terminal)
    problem: str | None  # why not in the keyring: store/secrets.py's codes, said by the page


class KeyringStatus(TypedDict):
    usable: bool  # False: keys are kept for this session only
    problem: str | None  # why not: store/secrets.py's codes, said by the page
    # The Secret Service's keyring: "unlocked", "locked" (storing a key asks for its password),
    # "missing" (storing one asks to choose a password for a new keyring), None: not known
    state: str | None


class ServedTool(TypedDict):
    """One MCP server's tool as the app's model is offered it (``metona-tray mcp serve`` offers
    it to its own client under the same name)."""

    name: str  # "server__tool", as the app names it
    description: str  # "[server] ...", bounded
    input_schema: Json
    risk: str  # tools.base.Risk value: what the app's approvals treat it as


class McpSecretSaved(TypedDict):
    """A secret for an MCP server kept (never sent back): the reference to write instead."""

    reference: str  # "keyring:NAME"
    stored_in_keyring: bool  # False: kept for this session only (no usable keyring)
    warning: str | None  # English detail (logs, the terminal)
    problem: str | None  # why not in the keyring: store/secrets.py's codes, said by the page


class Undone(TypedDict, total=False):
    """What an undo put back (``tools.journal.journal_undo``)."""

    success: bool
    call_id: str | None
    path: str
    action: str
    tool: str
    warning: str
    warning_reason: str  # why the journal could not record the undo (``warning`` says the rest)


class TurnUndone(TypedDict, total=False):
    """What undoing a whole turn did (``tools.journal.journal_turn``): one outcome per change tried,
    newest first, each either put back (``success``, ``action``) or left (``code``, ``params``,
    ``error``; ``forceable`` when "undo anyway" would do it)."""

    turn_id: str
    session_id: str | None
    session_title: str | None
    turn_prompt: str | None
    undone: int
    left: int
    already: int  # changes of the turn undone before this
    outcomes: list[Json]
    warning: str
    warning_reason: str
