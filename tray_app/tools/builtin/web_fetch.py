"""web_fetch: a web page, PDF or text file as text, a bounded slice of it at a time.

Every hop (the URL and each redirect) goes through the address policy of ``web_address`` and
is sent to the address checked there (``web_pinned``). The body, the time, the redirects and the
characters returned are bounded; ``start`` and ``next_start`` page through a long text.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urljoin

import httpx
from pydantic import Field

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.builtin.web_address import AddressRefused, check_url
from tray_app.tools.builtin.web_pinned import pinned_client
from tray_app.tools.builtin.web_text import PageText, html_text, pdf_text, plain_text
from tray_app.tools.result import ToolResult, failure

MAX_BODY = 10 * 1024 * 1024
MAX_REDIRECTS = 5
TOTAL_S = 30.0
DEFAULT_CHARS = 20_000
MAX_CHARS = 200_000
MIN_CHARS = 200
RESULT_ROOM = 1_000  # the result's other keys, within the characters the model may receive
USER_AGENT = "MetonaTray/0.1 (web_fetch)"
_HTML = ("text/html", "application/xhtml+xml")
_TEXT = ("application/json", "application/xml", "application/javascript")


class WebFetchArgs(ToolArgs):
    url: str = Field(description="The http:// or https:// address to fetch.")
    max_chars: int | None = Field(
        default=None,
        description=f"At most this many characters of text (default {DEFAULT_CHARS}).",
    )
    start: int | None = Field(
        default=None, description="Where to start in the text: a next_start from before."
    )


class _Body:
    """A response read to its end or to ``MAX_BODY``."""

    def __init__(self, url: str, status: int, content_type: str, charset: str | None) -> None:
        self.url, self.status, self.content_type, self.charset = url, status, content_type, charset
        self.data = b""
        self.cut = False


def fetch(ctx: ToolContext, url: str) -> _Body | ToolResult:
    """GET ``url``, each redirect checked again; the body, or the failure to tell the model."""
    deadline = time.monotonic() + TOTAL_S
    redirects = 0
    while True:
        try:
            target = check_url(url, ctx.policy.web_allowed_hosts)
        except AddressRefused as exc:
            return failure(str(exc), code=exc.code, params=exc.params)  # type: ignore[arg-type]
        try:
            with (
                pinned_client(target, timeout=TOTAL_S, user_agent=USER_AGENT) as client,
                client.stream("GET", target.url) as response,
            ):
                location = response.headers.get("location")
                if response.is_redirect and location:
                    redirects += 1
                    if redirects > MAX_REDIRECTS:
                        return failure(
                            f"more than {MAX_REDIRECTS} redirects",
                            code="web_too_many_redirects",
                            params={"limit": MAX_REDIRECTS},
                        )
                    url = urljoin(str(response.url), location)
                    continue
                if response.status_code >= 400:
                    return failure(
                        f"the server answered HTTP {response.status_code}",
                        code="web_http_status",
                        params={"status": response.status_code, "url": url},
                    )
                kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
                body = _Body(url, response.status_code, kind, response.charset_encoding)
                for chunk in response.iter_bytes():
                    if ctx.cancel.is_set() or time.monotonic() > deadline:
                        raise httpx.ReadTimeout("the page took too long")
                    room = MAX_BODY - len(body.data)
                    body.data += chunk[:room]
                    if len(chunk) > room:
                        body.cut = True
                        break
                return body
        except httpx.TimeoutException:
            return failure(
                f"the page took longer than {TOTAL_S:.0f} s",
                code="web_timed_out",
                params={"seconds": int(TOTAL_S)},
            )
        except httpx.HTTPError as exc:
            reason = str(exc) or type(exc).__name__
            return failure(
                f"cannot fetch {url}: {reason}", code="web_failed", params={"reason": reason[:500]}
            )


def page_text(body: _Body) -> PageText | ToolResult:
    """The body as text by its type; other types are refused."""
    kind = body.content_type
    try:
        if kind in _HTML or (not kind and body.data.lstrip()[:1] == b"<"):
            return html_text(body.data, body.url, body.charset)
        if kind == "application/pdf":
            return pdf_text(body.data)
        if kind.startswith("text/") or kind in _TEXT or kind.endswith(("+json", "+xml")):
            return plain_text(body.data, body.charset)
    except Exception as exc:  # a damaged PDF or page: its library's words for the model
        return failure(
            f"cannot read this {kind or 'page'}: {exc}",
            code="web_unreadable",
            params={"type": kind, "reason": str(exc)[:500]},
        )
    return failure(
        f"{kind or 'this type'} cannot be read as text (HTML, PDF and text can)",
        code="web_unsupported_type",
        params={"type": kind or "?"},
    )


def chars_wanted(ctx: ToolContext, asked: int | None) -> int:
    """The characters to return: as asked, within what the model may receive."""
    room = (ctx.result_chars or MAX_CHARS) - RESULT_ROOM
    wanted = asked if asked and asked > 0 else DEFAULT_CHARS
    return max(MIN_CHARS, min(wanted, MAX_CHARS, room))


def web_fetch(ctx: ToolContext, args: WebFetchArgs) -> ToolResult:
    body = fetch(ctx, args.url)
    if isinstance(body, dict):
        return body
    page = page_text(body)
    if isinstance(page, dict):
        return page
    start = max(0, args.start or 0)
    end = start + chars_wanted(ctx, args.max_chars)
    result: ToolResult = {
        "success": True,
        "url": body.url,
        "content_type": body.content_type,
        "title": page.title[:500],
        "text": page.text[start:end],
        "start": start,
        "total_chars": len(page.text),
    }
    if end < len(page.text):
        result["next_start"] = end
    if body.cut:
        result["body_cut"] = f"only the first {MAX_BODY // (1024 * 1024)} MB were read"
    return result


def web_fetch_preview(ctx: ToolContext, args: WebFetchArgs) -> dict[str, Any]:
    """The URL the call goes to: the loop asks unless the person wrote it in this chat."""
    return {"kind": "none", "text": args.url.strip()[:2_000], "url": args.url.strip()}


TOOL = Tool(
    name="web_fetch",
    description=(
        "Fetch a web page (http/https), PDF or text file and return its text (pages as "
        "Markdown). Long texts come in parts: call again with start=next_start."
    ),
    args_model=WebFetchArgs,
    risk=Risk.READ,
    handler=web_fetch,
    preview=web_fetch_preview,
    network=True,
)
