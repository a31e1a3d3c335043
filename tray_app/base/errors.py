"""The exception tree of Metona Tray.

    MetonaError
    ├── ConfigError              settings or paths unusable
    ├── ProviderError            anything between us and the model server
    │   ├── ProviderUnavailable  server not reachable (connection refused, DNS, timeout)
    │   ├── ModelNotFound        the model is not installed on the server
    │   ├── CapabilityError      the model lacks what the request needs (tools, thinking, vision)
    │   ├── ProviderHTTPError    any other non-2xx answer, with status and body text
    │   │   └── ServerBusy       429/503, with the wait the server asked for (Retry-After)
    │   └── StreamError          the stream broke or carried an error line mid-way
    │       └── LineTooLong      a line or event longer than the limit (the stream is cut)
    ├── SandboxViolation         a tool argument points where the policy forbids
    ├── UndoUnavailable          the undo journal cannot keep a copy, so a change is refused
    ├── UndoFailed               an undo the user asked for cannot be done (already undone, changed)
    ├── StoreError               the chat database or settings file failed
    ├── ExportFailed             an exported chat could not be written where the user chose
    ├── InvalidRequest           a command's argument is malformed or impossible
    │   ├── RefusedServerName    a pasted MCP config's server name the rules refuse (coded)
    │   └── InvalidSettings      a settings change with invalid fields (nothing was applied)
    ├── NotFound                 no such chat, waiting call or change
    │   └── ChangeNotFound       no such change in the undo journal (coded, like UndoFailed)
    ├── Busy                     the chat is still answering
    ├── Unsupported              this build or desktop cannot do it (no keyring, no dialog)
    └── NotAnswering             the core did not answer in time (or is not running)

httpx exceptions are translated to these only inside ``tray_app.providers``; tool failures are
not raised at all but returned to the model as ``{"success": false, "error": ...}``.

Every ``Core`` command fails only by raising one of these (a bug aside). ``ERROR_CODES`` is the
one table from class to the code the page and ``chat --json`` know (``web/locales`` has a text
for each: ``command_error.<code>``); ``error_code`` looks a raised error up in it.
"""

from __future__ import annotations

from tray_app.tool_errors import CodedError
from tray_app.undo_reasons import flat


class MetonaError(Exception):
    """Base class of every error the app raises on purpose."""


class ConfigError(MetonaError):
    """Settings or paths cannot be used."""


class ProviderError(MetonaError):
    """A request to the model server failed; ``str(err)`` is meant for the user."""


class ProviderUnavailable(ProviderError):
    """The server could not be reached at all."""


class ModelNotFound(ProviderError):
    """The server does not have the requested model."""

    def __init__(self, message: str, *, model: str = "") -> None:
        super().__init__(message)
        self.model = model


class CapabilityError(ProviderError):
    """The model cannot do what the request asks (tools, thinking, images)."""

    def __init__(self, message: str, *, capability: str = "") -> None:
        super().__init__(message)
        self.capability = capability


class ProviderHTTPError(ProviderError):
    """A non-2xx answer not covered by a more specific class."""

    def __init__(self, message: str, *, status: int, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class ServerBusy(ProviderHTTPError):
    """HTTP 429 or 503. ``retry_after`` is the wait the server asked for, in seconds, if any."""

    def __init__(
        self, message: str, *, status: int, body: str = "", retry_after: float | None = None
    ) -> None:
        super().__init__(message, status=status, body=body)
        self.retry_after = retry_after


class StreamError(ProviderError):
    """The stream ended badly: an error line, a dropped connection or unparsable data."""


class LineTooLong(StreamError):
    """A line (or SSE event) grew past the limit: reading on would cost memory without bound."""


class SandboxViolation(MetonaError, CodedError):
    """A path or command is outside what the sandbox policy allows; ``code`` and ``params``
    (``tool_errors``) let the card say why in the user's language."""


class UndoUnavailable(MetonaError, CodedError):
    """The undo journal cannot keep a copy (its folder is full, read-only or locked); the tool
    refuses before touching anything. ``str(err)`` is meant for the model and the user."""

    def __init__(self, message: str, *, tool: str, reason: str) -> None:
        super().__init__(message, code="undo_unavailable", tool=tool, **flat(reason))


class StoreError(MetonaError):
    """The chat store or the settings file could not be read or written. ``reason_info`` is
    the undo journal's coded reason (``undo_reasons``), so the page can say it in its language."""

    def __init__(self, message: str, *, reason_info: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.reason_info = reason_info


class UndoFailed(MetonaError, CodedError):
    """The journal refused an undo (already undone, the file changed since, nothing to undo);
    ``str(err)`` says why in English (logs, ``--json``), ``code`` and ``params`` (an ``undo_*``
    code of ``tool_errors``) let the page and the terminal say it in the user's language."""


class ExportFailed(MetonaError, CodedError):
    """An exported chat could not be written to the file the user chose; ``code`` and
    ``params`` (an OS error's code of ``tool_errors``) let the page say why in its language."""


class InvalidRequest(MetonaError):
    """A command's argument cannot be used (an empty name, a folder that is not one)."""


class RefusedServerName(InvalidRequest):
    """A pasted config's server whose name the rules refuse; ``server``, ``code`` and ``params``
    (``mcp/config.py`` ``name_problem``) let the page say why in its language."""

    def __init__(self, message: str, *, server: str, code: str, params: dict[str, object]) -> None:
        super().__init__(message)
        self.server = server
        self.code = code
        self.params = params


class InvalidSettings(InvalidRequest):
    """A settings change with invalid fields; nothing was applied. ``errors`` maps each field
    to why; ``settings`` are the settings still in force (the page shows them again);
    ``codes`` maps the fields whose reason is coded to ``{"code", "params"}`` (an MCP server's
    refused name), so the page says it in its language."""

    def __init__(
        self,
        message: str,
        *,
        errors: dict[str, str],
        settings: dict[str, object],
        codes: dict[str, dict[str, object]] | None = None,
    ) -> None:
        super().__init__(message)
        self.errors = errors
        self.settings = settings
        self.codes = codes or {}


class NotFound(MetonaError):
    """No chat, waiting call or change has this id (deleted, decided, or never existed)."""


class ChangeNotFound(NotFound, CodedError):
    """No change in the undo journal has this number or id; coded like ``UndoFailed``."""


class Busy(MetonaError):
    """The chat is still answering; stop it first."""


class Unsupported(MetonaError):
    """This build or desktop cannot do it: no secret store, no save dialog."""


class NotAnswering(MetonaError):
    """The core did not answer in time, or is not running."""


# The codes the page (``web/js``, ``web/locales`` ``command_error.<code>``) and ``chat --json``
# know. The most specific class listed wins; anything outside the tree is a bug: ``internal``.
ERROR_CODES: dict[type[MetonaError], str] = {
    MetonaError: "error",
    ConfigError: "config_error",
    ProviderError: "provider_error",
    ProviderUnavailable: "provider_unavailable",
    ModelNotFound: "model_not_found",
    CapabilityError: "capability",
    ServerBusy: "server_busy",
    StreamError: "stream_error",
    SandboxViolation: "sandbox_violation",
    UndoUnavailable: "undo_unavailable",
    UndoFailed: "undo_failed",
    StoreError: "store_error",
    ExportFailed: "export_failed",
    InvalidRequest: "invalid_request",
    InvalidSettings: "invalid_settings",
    NotFound: "not_found",
    Busy: "busy",
    Unsupported: "unsupported",
    NotAnswering: "timeout",
}
INTERNAL = "internal"


def error_code(exc: BaseException) -> str:
    """The code of ``exc``'s nearest class in ``ERROR_CODES``; ``internal`` for a bug."""
    for cls in type(exc).__mro__:
        code = ERROR_CODES.get(cls)
        if code is not None:
            return code
    return INTERNAL
