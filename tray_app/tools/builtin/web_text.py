"""A fetched body as readable text: HTML as light Markdown, PDFs' text, plain text as is.

HTML is parsed by lxml (libxml2, in C: linear in the page, with its own nesting limit) and
walked without recursion, so a hostile page (deep nesting, huge attributes) costs time in
proportion to its size. html2text, the pure-Python alternative, took four times the half
second of CPU a 2 MB page may cost; trafilatura is not in the package registry here.
"""

from __future__ import annotations

import codecs
import io
import re
from dataclasses import dataclass
from urllib.parse import urljoin

MAX_PDF_PAGES = 500
_SKIP = frozenset(
    {"script", "style", "noscript", "template", "svg", "math", "head", "iframe", "object",
     "canvas", "button", "select", "form", "nav", "footer"}
)  # fmt: skip
_BLOCK = frozenset(
    {"p", "div", "section", "article", "main", "header", "aside", "blockquote", "ul", "ol",
     "dl", "dt", "dd", "table", "tr", "figure", "figcaption", "hr", "address", "details",
     "summary", "br", "li", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}
)  # fmt: skip
_SPACES = re.compile(r"\s+")
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,200}?charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.I
)
_KEEP = "\x01"  # marks a line inside <pre>: its indentation is kept
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True)
class PageText:
    title: str
    text: str


def html_text(body: bytes, base_url: str, encoding: str | None = None) -> PageText:
    """The readable text of an HTML page, headings, list items and links in Markdown."""
    from lxml import etree

    # huge_tree: a long text node is kept (the body is already bounded); nesting stops at
    # libxml2's depth limit, and what comes after that point is not read.
    # etree's own parser, not lxml.html's: its element classes cost a Python lookup per element.
    parser = etree.HTMLParser(
        encoding=html_encoding(body, encoding),
        remove_comments=True,
        remove_pis=True,
        huge_tree=True,
    )
    try:
        root = etree.fromstring(body.replace(_KEEP.encode(), b""), parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return PageText("", "")
    if root is None:
        return PageText("", "")
    title_el = root.find(".//title")
    title = " ".join("".join(title_el.itertext()).split()) if title_el is not None else ""
    out: list[str] = []
    pre = 0
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if tag in _SKIP or not tag:
                walker.skip_subtree()
                if tag:  # the end event still comes; its tail is read there
                    continue
                _tail(out, el, pre)
                continue
            if tag in _BLOCK:
                out.append("\n")
            if tag == "pre":
                pre += 1
                out.append(_KEEP)
            elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
                out.append("#" * int(tag[1]) + " ")
            elif tag == "li":
                out.append("- ")
            elif tag == "a" and el.get("href"):
                out.append("[")
            if el.text:
                out.append(_pre(el.text) if pre else el.text.replace("\n", " "))
        else:
            if tag in _SKIP:
                _tail(out, el, pre)
                continue
            if tag == "a" and el.get("href"):
                href = el.get("href", "")
                link = (
                    urljoin(base_url, href) if not href.startswith(("javascript:", "data:")) else ""
                )
                out.append(f"]({link})" if link else "]")
            elif tag in ("td", "th"):
                out.append(" | ")
            if tag == "pre":
                pre -= 1
            if tag in _BLOCK:
                out.append("\n")
            _tail(out, el, pre)
    text = "".join(out)
    lines = (
        line[1:].rstrip() if line.startswith(_KEEP) else " ".join(line.split())
        for line in text.split("\n")
    )
    return PageText(title, _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip())


def _tail(out: list[str], el: object, pre: int) -> None:
    tail = getattr(el, "tail", None)
    if tail:
        out.append(_pre(tail) if pre else tail.replace("\n", " "))


def _pre(text: str) -> str:
    return text.replace("\n", "\n" + _KEEP)


def html_encoding(body: bytes, encoding: str | None) -> str:
    """The page's encoding: the header's charset, else the page's <meta> one, else UTF-8 when
    it decodes, else Windows-1252 (what browsers assume)."""
    for name in (encoding, _meta_charset(body)):
        if name:
            try:
                return codecs.lookup(name).name
            except LookupError:
                continue
    try:  # a body cut at the size bound may end inside a character
        codecs.getincrementaldecoder("utf-8")().decode(body, final=False)
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def _meta_charset(body: bytes) -> str | None:
    found = _META_CHARSET.search(body[:4096])
    return found.group(1).decode("ascii") if found else None


def pdf_text(body: bytes) -> PageText:
    """The text of a PDF's pages (at most ``MAX_PDF_PAGES``), a blank line between pages."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(body))
    title = ""
    if reader.metadata is not None and reader.metadata.title:
        title = str(reader.metadata.title)
    pages = [page.extract_text() or "" for page in reader.pages[:MAX_PDF_PAGES]]
    return PageText(title, "\n\n".join(p.strip() for p in pages).strip())


def plain_text(body: bytes, encoding: str | None) -> PageText:
    return PageText("", body.decode(encoding or "utf-8", errors="replace"))
