"""What an image costs a model's context, from its pixel size.

A flat cost per image made a 64x64 icon cost as much as a 4K screenshot, so a chat of small
images gave up context it had and one of screenshots overflowed it. The width and height are
read from the image's header only (Pillow opens lazily and reads no pixels), from a bounded
prefix of the base64, so a hostile image costs at most ``HEADER_CHARS`` of decoding. The cost
follows the common tiling rule (OpenAI's "high detail"): fit in 2048x2048, shortest side at
most 768, then 170 tokens per 512-pixel tile plus 85. Local vision models count differently
but in the same range; this is a budget estimate, not a bill.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import warnings
from functools import lru_cache

HEADER_CHARS = 64 * 1024  # base64 characters decoded to find the size (48 KB: past big EXIF)
_FIRST_TRY_CHARS = 4 * 1024  # enough for PNG, GIF, WebP and most JPEGs: a small cache key
UNKNOWN_IMAGE_TOKENS = 768  # an image whose size cannot be read
_BASE, _PER_TILE, _TILE = 85, 170, 512
FLOOR_TOKENS = _BASE + _PER_TILE  # one tile: even a 1x1 image
CAP_TOKENS = _BASE + _PER_TILE * 8  # 768x2048 after scaling: the most the rule gives
_FORMATS = ("PNG", "JPEG", "GIF", "WEBP")


def tiled_tokens(width: int, height: int) -> int:
    """The tiling rule's cost of a ``width`` x ``height`` image, within floor and cap."""
    if width <= 0 or height <= 0:
        return UNKNOWN_IMAGE_TOKENS
    scale = min(1.0, 2048 / max(width, height), 768 / min(width, height))
    w, h = max(1, math.ceil(width * scale)), max(1, math.ceil(height * scale))
    tiles = math.ceil(w / _TILE) * math.ceil(h / _TILE)
    return max(FLOOR_TOKENS, min(CAP_TOKENS, _BASE + _PER_TILE * tiles))


def _header_size(head: str) -> tuple[int, int] | None:
    """Width and height from the start of a base64 image; raises Pillow's
    ``DecompressionBombError`` for a header that claims more pixels than Pillow opens."""
    from PIL import Image  # only a chat with images pays for the import

    try:
        raw = base64.b64decode(head[: len(head) - len(head) % 4])
    except (binascii.Error, ValueError):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(raw), formats=_FORMATS) as image:
                width, height = image.size
    except Image.DecompressionBombError:
        raise
    except Exception:  # Pillow raises many kinds on a truncated or hostile header
        return None
    return (width, height) if width > 0 and height > 0 else None


def image_size(data: str) -> tuple[int, int] | None:
    """Width and height of a base64 PNG, JPEG, GIF or WebP from its first ``HEADER_CHARS``;
    None when unreadable (not an image, a header past the prefix, absurdly many pixels)."""
    from PIL import Image

    try:
        return _header_size(data[:HEADER_CHARS])
    except Image.DecompressionBombError:
        return None


@lru_cache(maxsize=64)
def _head_tokens(head: str) -> int:
    """Cached by the prefix (the size is in it): a chat's images are estimated every turn."""
    from PIL import Image

    try:
        size = _header_size(head)
    except Image.DecompressionBombError:
        return CAP_TOKENS  # more pixels than Pillow opens: as costly as an image gets
    return UNKNOWN_IMAGE_TOKENS if size is None else tiled_tokens(*size)


def image_tokens(data: str) -> int:
    """The context cost of one base64 image."""
    tokens = _head_tokens(data[:_FIRST_TRY_CHARS])
    if tokens == UNKNOWN_IMAGE_TOKENS and len(data) > _FIRST_TRY_CHARS:
        tokens = _head_tokens(data[:HEADER_CHARS])
    return tokens
