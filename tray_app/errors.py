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
    └── StoreError               the chat database or settings file failed

httpx exceptions are translated to these only inside ``tray_app.providers``; tool failures are
not raised at all but returned to the model as ``{"success": false, "error": ...}``.
"""

from __future__ import annotations


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


class SandboxViolation(MetonaError):
    """A path or command is outside what the sandbox policy allows."""


class UndoUnavailable(MetonaError):
    """The undo journal cannot keep a copy (its folder is full, read-only or locked); the tool
    refuses before touching anything. ``str(err)`` is meant for the model and the user."""


class StoreError(MetonaError):
    """The chat store or the settings file could not be read or written."""
