"""HTTP plumbing shared by the providers: clients, error translation and line splitting.

httpx exceptions are turned into ``tray_app.errors`` here and nowhere else (DESIGN section 3,
item 4). The rule is simple: a failure before the response headers arrived means the server
could not be reached (``ProviderUnavailable``) or refused the request (typed from its body); a
failure after them means the stream broke (``StreamError``), and what was already yielded
stays with the consumer.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from tray_app import __version__
from tray_app.errors import (
    CapabilityError,
    ModelNotFound,
    ProviderError,
    ProviderHTTPError,
    ProviderUnavailable,
    StreamError,
)

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0
BODY_KEEP = 4000  # characters of an error body kept on ProviderHTTPError
_CAPABILITY = re.compile(r"does not support (\w+)")
_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")
_EOL = re.compile(rb"\r\n?|\n")


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
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
        trust_env=not is_loopback(endpoint),
        headers={"User-Agent": f"metona-tray/{__version__}"},
    )


def _reason(exc: BaseException) -> str:
    text = _ERRNO.sub("", str(exc)).strip()
    return text[:1].lower() + text[1:] if text else type(exc).__name__


def error_text_from_body(text: str) -> tuple[str | None, str | None]:
    """The server's own message and code: Ollama ``{"error": "…"}``, OpenAI ``{"error": {…}}``."""
    try:
        data = json.loads(text)
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


def error_for_status(
    server: Server, status: int, body: bytes, *, reason: str = "", model: str | None = None
) -> ProviderError:
    """Type a non-2xx answer by what the server said, keeping its text for the user."""
    text = body.decode("utf-8", "replace")
    message, code = error_text_from_body(text)
    if message is None:
        snippet = " ".join(text.split())[:300]
        message = f"{server.name} at {server.endpoint} answered HTTP {status}"
        message += f" {reason}" if reason else ""
        message += f": {snippet}" if snippet else ""
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
                body = await response.aread()
                log.debug("%s %s -> HTTP %s", method, url, response.status_code)
                raise error_for_status(
                    server, response.status_code, body, reason=response.reason_phrase, model=model
                )
            yield response
    except httpx.InvalidURL as exc:
        raise ProviderError(f"The endpoint {server.endpoint!r} is not a valid URL: {exc}") from exc
    except httpx.HTTPError as exc:
        raise transport_error(server, exc, started=started, activity=activity) from exc


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
        body = await response.aread()
    try:
        return json.loads(body)
    except ValueError:
        snippet = " ".join(body.decode("utf-8", "replace").split())[:200]
        raise ProviderError(
            f"{server.name} at {server.endpoint} answered {url} with something that is not "
            f"JSON: {snippet!r}"
        ) from None


class LineSplitter:
    """Split a byte stream into lines at ``\\n``, ``\\r\\n`` or ``\\r``, and nowhere else.

    httpx's ``aiter_lines`` uses ``str.splitlines``, which also breaks at U+0085, U+2028,
    U+001C… Go's JSON encoder leaves U+0085 unescaped, so a model writing that character would
    cut an NDJSON line in two. Lines are decoded only once complete, so a UTF-8 character split
    across network reads is never torn either.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._skip_lf = False

    def feed(self, data: bytes) -> list[str]:
        if self._skip_lf and data[:1] == b"\n":
            data = data[1:]
        self._skip_lf = False
        self._buffer += data
        lines: list[str] = []
        end = 0
        for match in _EOL.finditer(self._buffer):
            lines.append(self._buffer[end : match.start()].decode("utf-8", "replace"))
            end = match.end()
        if end:
            # A lone "\r" at the very end may be the first half of a "\r\n" split in two reads.
            self._skip_lf = end == len(self._buffer) and self._buffer[end - 1 : end] == b"\r"
            del self._buffer[:end]
        return lines

    def flush(self) -> list[str]:
        rest = self._buffer.decode("utf-8", "replace")
        self._buffer.clear()
        return [rest] if rest else []


async def iter_lines(response: httpx.Response) -> AsyncIterator[str]:
    splitter = LineSplitter()
    async for data in response.aiter_bytes():
        for line in splitter.feed(data):
            yield line
    for line in splitter.flush():
        yield line
