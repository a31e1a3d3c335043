"""An MCP ``CallToolResult`` as a tool result: what the model reads and what the card shows.

Works on the wire JSON (``model_dump(by_alias=True, mode="json")``), so it does not depend on
the SDK's classes. Text, embedded text resources, resource links and ``structuredContent`` go
to the model, bounded. Images (PNG, JPEG, GIF, WebP; at most ``MAX_IMAGES`` of
``MAX_IMAGE_BYTES`` each) are ``card_images``: the card shows them, and the call handler puts
them on the tool message's ``images`` rather than in its text, so only a vision model is
shown them and any other gets a note (``messages.tool_result_images``, ``agent/history.py``).
The text lists them (``images``: type and size) either way. ``isError`` makes the result a
failure for the model, with the server's own words.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from tray_app.tools.result import ToolResult, failure

MAX_TEXT = 200_000  # characters of text for the model (the loop cuts to its own limit after)
MAX_STRUCTURED = 100_000  # characters of structuredContent as JSON
MAX_IMAGES = 4
MAX_IMAGE_BYTES = 4 * 1024 * 1024
MAX_ITEMS = 200  # content blocks looked at
CARD_KEYS = ("card_images",)  # kept on the card and in the store, never in the model's text
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n…[cut: {len(text) - limit} more characters from the server]"


def _decoded_size(data: str) -> int | None:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def convert(raw: Mapping[str, Any], *, server: str, tool: str) -> ToolResult:
    """The result for the model and the card (``raw`` is the CallToolResult's JSON)."""
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    skipped_images: list[str] = []
    resources: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    blocks = raw.get("content") or []
    if not isinstance(blocks, list):
        blocks = []
    for block in blocks[:MAX_ITEMS]:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind in ("image", "audio"):
            _image(block, images, skipped_images)
        elif kind == "resource":
            resources.append(_resource(block.get("resource")))
        elif kind == "resource_link":
            links.append(
                {
                    k: str(block[k])[:2_000]
                    for k in ("uri", "name", "title", "description", "mimeType")
                    if block.get(k) is not None
                }
            )
    text = _cut("\n".join(texts), MAX_TEXT)
    if raw.get("isError"):
        why = text or f"{tool} on {server} reported an error without a message"
        # The server's own words: the card says whose they are in the user's language.
        params = {"server": server, "tool": tool, "detail": text}
        return failure(why, code="mcp_reported_error", params=params, server=server)
    result: ToolResult = {"success": True, "server": server, "content": text}
    shown = {image["data"]: number for number, image in enumerate(images, 1)}
    structured = _without_media(raw.get("structuredContent"), shown)
    if structured is not None:
        dumped = json.dumps(structured, ensure_ascii=False, default=str)
        if len(dumped) <= MAX_STRUCTURED:
            result["structured"] = structured
        else:
            result["structured_note"] = (
                f"structuredContent left out: {len(dumped)} characters is over the limit"
            )
    if resources:
        result["resources"] = resources
    if links:
        result["resource_links"] = links
    if images:
        result["images"] = [{"mime_type": i["mime_type"], "bytes": i["bytes"]} for i in images]
        result["card_images"] = images
    if skipped_images:
        result["images_left_out"] = skipped_images
    if len(blocks) > MAX_ITEMS:
        result["content_left_out"] = len(blocks) - MAX_ITEMS
    return result


def _without_media(value: Any, shown: Mapping[str, int], depth: int = 0) -> Any:
    """structuredContent with image and audio data replaced by a note (some servers mirror
    their content blocks there; the model must not get base64 it cannot see). The note says
    which of this result's ``images`` it is when it is one (the card shows those and a vision
    model is shown them), else that it was left out: nothing shows that one."""
    if depth > 64:
        return "…[nested too deeply]"
    if isinstance(value, Mapping):
        if value.get("type") in ("image", "audio") and isinstance(value.get("data"), str):
            return {"type": value["type"], "note": _media_note(value, shown)}
        return {str(k): _without_media(v, shown, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_media(v, shown, depth + 1) for v in value]
    return value


def _media_note(value: Mapping[str, Any], shown: Mapping[str, int]) -> str:
    data = value["data"]
    size = _decoded_size(data)
    mime = str(value.get("mimeType") or value.get("mime_type") or value.get("type"))[:100]
    number = shown.get(data) if value.get("type") == "image" else None
    if number is not None:
        return f"{mime}, {size} bytes: the same as image {number} of this result's images"
    return f"{mime}, {size} bytes, left out: not among this result's images, not shown"


def _image(block: Mapping[str, Any], images: list[dict[str, Any]], skipped: list[str]) -> None:
    mime = str(block.get("mimeType") or "")
    data = block.get("data")
    size = _decoded_size(data) if isinstance(data, str) else None
    if block.get("type") != "image" or mime not in _IMAGE_TYPES:
        skipped.append(f"{block.get('type')} {mime or 'of unknown type'} (not shown)")
    elif size is None:
        skipped.append(f"{mime} (not valid base64)")
    elif size > MAX_IMAGE_BYTES or len(images) >= MAX_IMAGES:
        skipped.append(f"{mime} of {size} bytes (over the limit)")
    else:
        assert isinstance(data, str)
        images.append({"mime_type": mime, "bytes": size, "data": data})


def _resource(resource: Any) -> dict[str, Any]:
    if not isinstance(resource, Mapping):
        return {"error": "an embedded resource without contents"}
    out: dict[str, Any] = {"uri": str(resource.get("uri", ""))[:2_000]}
    if resource.get("mimeType"):
        out["mime_type"] = str(resource["mimeType"])[:200]
    if isinstance(resource.get("text"), str):
        out["text"] = _cut(resource["text"], MAX_TEXT // 4)
    elif isinstance(resource.get("blob"), str):
        size = _decoded_size(resource["blob"])
        out["blob"] = f"binary data, {size} bytes (not shown)" if size is not None else "invalid"
    return out


def model_view(result: Mapping[str, Any]) -> dict[str, Any]:
    """The result without what is only for the card."""
    return {k: v for k, v in result.items() if k not in CARD_KEYS}
