"""HTTP plumbing shared by the providers: clients, error translation and bounded reads.

httpx exceptions are turned into ``tray_app.base.errors`` here and nowhere else
(docs/architecture.md §3, "Errors"). The rule is simple: a failure before the response headers
arrived means the server could not be reached (``ProviderUnavailable``) or refused the request
(typed from its body); a failure after them means the stream broke (``StreamError``), and what was
already yielded stays with the consumer.

Nothing here reads a body without a cap: an error body is read up to ``ERROR_BODY_CAP`` and
summarised from that prefix (a 300 MB error page costs 64 KB), a whole JSON answer up to
``MAX_JSON_BYTES``.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from tray_app import __version__
from tray_app.base.errors import (
    CapabilityError,
    ModelNotFound,
    ProviderError,
    ProviderHTTPError,
    ProviderUnavailable,
    ServerBusy,
    StreamError,
)
from tray_app.providers._lines import size_text

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0
BODY_KEEP = 4000  # characters of an error body kept on ProviderHTTPError
MESSAGE_KEEP = 1000  # characters of the server's own error message shown to the user
ERROR_BODY_CAP = 64 * 1024  # bytes of an error body read at all; the rest is never received
MAX_JSON_BYTES = 16 * 1024 * 1024  # a whole JSON answer (model list, non-streamed completion)
BUSY_STATUSES = (429, 503)
_CAPABILITY = re.compile(r"does not support (\w+)")
_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")


class TooDeep(ValueError):
    """JSON nested more deeply than Python's reader can follow (it raises RecursionError)."""


def loads(data: str | bytes) -> Any:
    """``json.loads`` whose only failure is ``ValueError`` (``TooDeep`` for deep nesting)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise TooDeep("nested too deeply") from None


@dataclass(frozen=True)
class Server:
    """Who we talk to, for messages: ``name`` ("Ollama"), its endpoint, what to do if down."""

    name: str
    endpoint: str
    hint: str


def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_client(endpoint: str, timeout: float) -> httpx.AsyncClient:
    """A client whose read timeout is generous (model loading is slow) but connects fast.

    Proxy variables from the environment are ignored for loopback endpoints: a corporate
    ``HTTP_PROXY`` must not swallow requests to the local Ollama.
    """
    loopback = is_loopback(endpoint)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
        trust_env=not loopback,
        # Plain http to this machine (no proxy, no redirects followed) never speaks TLS:
        # skip loading the CA bundle, which costs 35-50 ms per client.
        verify=not (loopback and endpoint.strip().lower().startswith("http://")),
        headers={"User-Agent": f"metona-tray/{__version__}"},
    )


def _reason(exc: BaseException) -> str:
    text = _ERRNO.sub("", str(exc)).strip()
    return text[:1].lower() + text[1:] if text else type(exc).__name__


def error_text_from_body(text: str) -> tuple[str | None, str | None]:
    """The server's own message and code: Ollama ``{"error": "…"}``, OpenAI ``{"error": {…}}``."""
    try:
        data = loads(text)
    except ValueError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    error = data.get("error")
    if isinstance(error, str) and error:
        return error, None
    if isinstance(error, dict):
        message, code = error.get("message"), error.get("code") or error.get("type")
        if isinstance(message, str) and message:
            return message, code if isinstance(code, str) else None
    for key in ("message", "detail"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value, None
    return None, None


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds or an HTTP date."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
            if when.tzinfo is None:
                return None
            seconds = when.timestamp() - (time.time() if now is None else now)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):  # NaN, inf
        return None
    return max(0.0, seconds)


def _snippet(text: str, limit: int = 300) -> str:
    """Whitespace-collapsed start of ``text``; ``text`` is already capped, so this is bounded."""
    return " ".join(text[: limit * 4].split())[:limit]


def error_for_status(
    server: Server,
    status: int,
    body: bytes,
    *,
    reason: str = "",
    model: str | None = None,
    truncated: bool = False,
    retry_after: float | None = None,
) -> ProviderError:
    """Type a non-2xx answer by what the server said, keeping its text for the user.

    ``body`` is at most ``ERROR_BODY_CAP`` bytes (``truncated`` when the server sent more).
    """
    text = body.decode("utf-8", "replace")
    message, code = error_text_from_body(text) if not truncated else (None, None)
    if message is not None and len(message) > MESSAGE_KEEP:
        message = message[:MESSAGE_KEEP].rstrip() + "…"
    where = f"{server.name} at {server.endpoint}"
    answered = f"HTTP {status}" + (f" {reason}" if reason else "")
    if status in BUSY_STATUSES:
        said = message if message is not None else _snippet(text)
        busy = f"{where} is busy ({answered})" + (f": {said}" if said else ".")
        return ServerBusy(busy, status=status, body=text[:BODY_KEEP], retry_after=retry_after)
    if message is None:
        snippet = _snippet(text)
        message = f"{where} answered {answered}"
        message += f": {snippet}" if snippet else ""
        if truncated:
            message += f"… (an error page of more than {size_text(ERROR_BODY_CAP)})"
    capability = _CAPABILITY.search(message)
    if capability:
        return CapabilityError(message, capability=capability.group(1))
    if status == 404 and model and (code == "model_not_found" or "model" in message.lower()):
        return ModelNotFound(message, model=model)
    if status in (401, 403):
        message = f"{message.rstrip('.')}. Check the API key for {server.endpoint}."
    return ProviderHTTPError(message, status=status, body=text[:BODY_KEEP])


def transport_error(
    server: Server, exc: httpx.HTTPError, *, started: bool, activity: str
) -> ProviderError:
    where = f"{server.name} at {server.endpoint}"
    if not started:
        if isinstance(exc, httpx.UnsupportedProtocol):
            return ProviderError(
                f"The endpoint {server.endpoint!r} must start with http:// or https://."
            )
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return ProviderUnavailable(
                f"Cannot reach {where}: {_reason(exc)}. {server.hint}".rstrip()
            )
        if isinstance(exc, httpx.TimeoutException):
            return ProviderError(f"{where} did not answer in time ({_reason(exc)}).")
        return ProviderError(f"The request to {where} failed: {_reason(exc)}.")
    if isinstance(exc, httpx.TimeoutException):
        return StreamError(f"{where} stopped sending mid-{activity} ({_reason(exc)}).")
    return StreamError(f"The connection to {where} was lost mid-{activity} ({_reason(exc)}).")


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient,
    server: Server,
    method: str,
    url: str,
    *,
    json_body: Any = None,
    headers: Mapping[str, str] | None = None,
    model: str | None = None,
    timeout: httpx.Timeout | None = None,
    activity: str = "answer",
) -> AsyncIterator[httpx.Response]:
    """Send a request and hand over a successful streaming response.

    The response is closed when the block exits, also on cancellation or ``aclose()`` of the
    consumer's generator, so an abandoned stream never keeps its connection. httpx errors raised
    while the block reads the body are translated too.
    """
    options: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    started = False
    try:
        async with client.stream(
            method, url, json=json_body, headers=headers, **options
        ) as response:
            started = True
            if not response.is_success:
                body, truncated = await read_capped(response, ERROR_BODY_CAP)
                log.debug("%s %s -> HTTP %s", method, url, response.status_code)
                raise error_for_status(
                    server,
                    response.status_code,
                    body,
                    reason=response.reason_phrase,
                    model=model,
                    truncated=truncated,
                    retry_after=parse_retry_after(response.headers.get("retry-after")),
                )
            yield response
    except httpx.InvalidURL as exc:
        raise ProviderError(f"The endpoint {server.endpoint!r} is not a valid URL: {exc}") from exc
    except httpx.HTTPError as exc:
        raise transport_error(server, exc, started=started, activity=activity) from exc


async def read_capped(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    """At most ``cap`` bytes of the body, and whether there was more (the rest is not read)."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        room = cap - len(body)
        if len(chunk) > room:
            body += chunk[:room]
            return bytes(body), True
        body += chunk
    return bytes(body), False


async def request_json(
    client: httpx.AsyncClient,
    server: Server,
    method: str,
    url: str,
    *,
    json_body: Any = None,
    headers: Mapping[str, str] | None = None,
    model: str | None = None,
    timeout: httpx.Timeout | None = None,
) -> Any:
    """A small request whose whole answer is one JSON document."""
    async with open_stream(
        client,
        server,
        method,
        url,
        json_body=json_body,
        headers=headers,
        model=model,
        timeout=timeout,
        activity="response",
    ) as response:
        body, truncated = await read_capped(response, MAX_JSON_BYTES)
    if truncated:
        raise ProviderError(
            f"{server.name} at {server.endpoint} answered {url} with more than "
            f"{size_text(MAX_JSON_BYTES)}; that is not an answer this app can use."
        )
    try:
        return loads(body)
    except ValueError:
        snippet = " ".join(body.decode("utf-8", "replace").split())[:200]
        raise ProviderError(
            f"{server.name} at {server.endpoint} answered {url} with something that is not "
            f"JSON: {snippet!r}"
        ) from None
