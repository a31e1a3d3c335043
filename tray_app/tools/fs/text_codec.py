"""How a text file is stored: its encoding, byte-order mark and line endings.

Reads detect a BOM (UTF-8, UTF-16 LE/BE, UTF-32) and otherwise use what was asked (UTF-8 by
default). Writes and edits of an existing file keep what it had, so a Windows tool's UTF-16 file
with CRLF line endings comes back as UTF-16 with CRLF, byte for byte where the text did not
change. Pure functions, no I/O.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from tray_app.tool_errors import CodedError

# Longest first: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32le"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32be"),
    (codecs.BOM_UTF8, "utf-8", "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16le"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16be"),
)
# What the model may ask for, beyond any codec name Python knows.
ALIASES = {
    "utf8": "utf-8",
    "utf-8": "utf-8",
    "utf-8-sig": "utf-8",
    "utf16": "utf-16",
    "utf-16": "utf-16",
    "latin1": "latin1",
    "latin-1": "latin1",
    "iso-8859-1": "latin1",
    "iso8859-1": "latin1",
    "base64": "base64",
}


#: Codecs that do not write each character as bytes of its own, so text written with them does
#: not come back byte for byte: escapes (``unicode_escape`` writes a line break as the two
#: characters ``\\n``), shift states (``utf-7``, ``iso2022_*``, ``hz``), IDNA labels. Reading
#: with them is fine; writing is refused (``encoding_not_writable``).
NOT_WRITABLE = frozenset(
    {
        "unicode_escape",
        "raw_unicode_escape",
        "utf_7",
        "punycode",
        "idna",
        "undefined",
        "hz",
        "iso2022_jp",
        "iso2022_jp_1",
        "iso2022_jp_2",
        "iso2022_jp_2004",
        "iso2022_jp_3",
        "iso2022_jp_ext",
        "iso2022_kr",
    }
)
#: Codecs whose strict decoding always gives back the same bytes when encoded again.
_ALWAYS_ROUND_TRIP = frozenset(
    {"utf_8", "utf_16_le", "utf_16_be", "utf_32_le", "utf_32_be", "iso8859_1", "ascii"}
)
WRITABLE_EXAMPLES = (
    "utf-8, utf-16, utf-32, latin1, cp1252 or another single-byte code page, shift_jis, gbk, "
    "gb18030, big5 or euc-kr"
)


class EncodingProblem(CodedError, ValueError):
    """The bytes are not text in the asked or detected encoding; ``str()`` is for the model
    (the catcher adds the file's ``path`` to the params)."""


@dataclass(frozen=True)
class TextFormat:
    """Everything needed to write text back the way the file had it."""

    codec: str  # a Python codec without BOM handling: utf-8, utf-16-le, latin-1, cp1252, ...
    label: str  # what results show: utf-8, utf-16le, latin1, ...
    bom: bytes = b""
    newline: str = "\n"  # the file's dominant line ending

    def describe(self) -> str:
        parts = [self.label]
        if self.bom:
            parts.append("BOM")
        if self.newline == "\r\n":
            parts.append("CRLF")
        return ", ".join(parts)


UTF8 = TextFormat(codec="utf-8", label="utf-8")


def normalize_name(value: str) -> str:
    """``"UTF8"`` → ``"utf-8"``; an unknown name raises ``ValueError`` (for pydantic)."""
    key = value.strip().lower().replace("_", "-")
    if key in ALIASES:
        return ALIASES[key]
    try:
        info = codecs.lookup(key)
    except LookupError:
        raise ValueError(
            f"unknown encoding {value!r}; use utf-8, utf-16, latin1, base64 or another "
            "Python codec name such as cp1252 or shift_jis"
        ) from None
    if not _is_text_codec(info):
        raise ValueError(f"{value!r} is not a text encoding")
    return key


def _is_text_codec(info: codecs.CodecInfo) -> bool:
    # bytes-to-bytes codecs (hex, zlib, rot13...) are not text encodings.
    return getattr(info, "_is_text_encoding", True) is not False


def detect_bom(data: bytes) -> tuple[bytes, str, str] | None:
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            return bom, codec, label
    return None


def newline_of(text: str) -> str:
    """``\\r\\n`` when most line breaks are CRLF, else ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def decode(data: bytes, requested: str | None = None) -> tuple[str, TextFormat]:
    """The text (line endings untouched, no BOM) and how it was stored.

    A BOM wins over ``requested`` unless ``requested`` is a single-byte codec (latin1 reads any
    bytes, and the user asked for exactly that).
    """
    found = detect_bom(data)
    name = normalize_name(requested) if requested else None
    if found is not None and name in (None, "utf-8", "utf-16", "utf-32", found[1], found[2]):
        bom, codec, label = found
        text = _decode(data[len(bom) :], codec, label)
        return text, TextFormat(codec=codec, label=label, bom=bom, newline=newline_of(text))
    if name in (None, "utf-8"):
        text = _decode(data, "utf-8", "utf-8")
        return text, TextFormat(codec="utf-8", label="utf-8", newline=newline_of(text))
    if name == "utf-16":  # no BOM: little-endian, what Windows writes
        if data and b"\x00" not in data:
            # Text in UTF-16 has zero bytes (every ASCII character has one); without any, these
            # bytes decode to nonsense CJK. "utf-16-le" names the codec outright.
            raise EncodingProblem(
                "not UTF-16 text (no byte-order mark and no zero bytes); read it without an "
                "encoding to detect it, or name utf-16-le or utf-16-be",
                code="not_utf16",
            )
        text = _decode(data, "utf-16-le", "utf-16")
        return text, TextFormat(codec="utf-16-le", label="utf-16le", newline=newline_of(text))
    if name == "latin1":
        text = data.decode("latin-1")
        return text, TextFormat(codec="latin-1", label="latin1", newline=newline_of(text))
    assert name is not None
    text = _decode(data, name, name)
    return text, TextFormat(codec=name, label=name, newline=newline_of(text))


def _decode(data: bytes, codec: str, label: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        other = "latin1" if label.startswith("utf") else "utf-8"
        raise EncodingProblem(
            f"not valid {label} text (byte {exc.start}); try encoding {other} or base64",
            code="invalid_text",
            encoding=label,
            byte=exc.start,
            other=other,
        ) from None


def _canonical(codec: str) -> str:
    return codecs.lookup(codec).name.replace("-", "_")


def _not_writable(label: str) -> EncodingProblem:
    return EncodingProblem(
        f"{label} does not write text back byte for byte (it would rewrite parts that were "
        f"not changed); write with an encoding that does: {WRITABLE_EXAMPLES}",
        code="encoding_not_writable",
        encoding=label,
        encodings=WRITABLE_EXAMPLES,
    )


def check_writable(name: str) -> None:
    """Raise ``EncodingProblem`` when the codec ``name`` is one of ``NOT_WRITABLE``."""
    if name in ALIASES:
        return
    if _canonical(name) in NOT_WRITABLE:
        raise _not_writable(name)


def encode(text: str, fmt: TextFormat) -> bytes:
    """``text`` stored like ``fmt``; raises ``EncodingProblem`` for characters it cannot hold
    and for an encoding that would not read back as exactly ``text`` (what a preview showed
    is what is written)."""
    canonical = _canonical(fmt.codec)
    if canonical in NOT_WRITABLE:
        raise _not_writable(fmt.label)
    try:
        data = text.encode(fmt.codec)
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise EncodingProblem(
            f"the text has characters ({bad[:10]!r}) that are not valid in {fmt.label.upper()}",
            code="unencodable_text",
            chars=bad[:10],
            encoding=fmt.label.upper(),
        ) from None
    if canonical not in _ALWAYS_ROUND_TRIP:
        try:
            same = data.decode(fmt.codec) == text
        except UnicodeDecodeError:
            same = False
        if not same:
            raise _not_writable(fmt.label)
    return fmt.bom + data


def _first_difference(a: bytes, b: bytes) -> int:
    """The offset of the first byte where ``a`` and ``b`` differ (bisected, not a loop)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while hi - lo > 1:  # a[:lo] == b[:lo], a[:hi] != b[:hi]
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if a[lo:mid] == b[lo:mid] else (lo, mid)
    return lo


def keeps_bytes(data: bytes, text: str, fmt: TextFormat) -> None:
    """Raise ``EncodingProblem`` unless ``text`` (decoded from ``data`` as ``fmt``) encodes
    back to exactly ``data``: else an edit would change bytes outside the part it edits (a
    code page that reads two byte sequences as one character writes back only one of them)."""
    canonical = _canonical(fmt.codec)
    if canonical in NOT_WRITABLE:
        raise _not_writable(fmt.label)
    if canonical in _ALWAYS_ROUND_TRIP:
        return
    try:
        again = fmt.bom + text.encode(fmt.codec)
    except UnicodeEncodeError:
        again = b""
    if again != data:
        at = _first_difference(again, data)
        raise EncodingProblem(
            f"read as {fmt.label} and written back, its bytes would not stay the same (from "
            f"byte {at}): an edit would change parts of it that were not edited; name an "
            "encoding that keeps every byte, such as latin1",
            code="encoding_changes_bytes",
            encoding=fmt.label,
            byte=at,
        )


def with_newlines(text: str, newline: str) -> str:
    """``text`` with every line ending (``\n`` or ``\r\n``) as ``newline``; lone ``\r`` stays."""
    lf = text.replace("\r\n", "\n")
    return lf if newline == "\n" else lf.replace("\n", newline)


def sniff(data: bytes) -> TextFormat:
    """How existing bytes are stored, for writing them back; UTF-8 when nothing says else."""
    found = detect_bom(data)
    if found is not None:
        bom, codec, label = found
        text = data[len(bom) :].decode(codec, errors="replace")
        return TextFormat(codec=codec, label=label, bom=bom, newline=newline_of(text))
    return TextFormat(
        codec="utf-8", label="utf-8", newline=newline_of(data.decode("utf-8", errors="replace"))
    )


def chosen_format(existing: TextFormat | None, requested: str | None) -> TextFormat:
    """The format to write: the existing file's unless an encoding is named (line endings are
    kept either way). ``utf-16`` means little-endian with a BOM, as Windows writes it."""
    newline = existing.newline if existing is not None else "\n"
    if requested is None:
        return existing or UTF8
    name = normalize_name(requested)
    if name == "base64":
        raise EncodingProblem(
            "base64 is for reading binary files; writes take text", code="base64_is_for_reading"
        )
    if existing is not None and name in (existing.codec, existing.label):
        return existing
    if name == "utf-16":
        return TextFormat("utf-16-le", "utf-16le", codecs.BOM_UTF16_LE, newline)
    if name == "utf-32":
        return TextFormat("utf-32-le", "utf-32le", codecs.BOM_UTF32_LE, newline)
    if name == "latin1":
        return TextFormat("latin-1", "latin1", b"", newline)
    return TextFormat(name, name, b"", newline)
