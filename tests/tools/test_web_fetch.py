"""web_fetch against real web sites on 127.0.0.1: the text it returns, and the address policy
(nothing local unless allowed, every redirect checked, the name resolved once)."""

from __future__ import annotations

import socket
import time

import httpcore
import pytest

from tests.fakes.web_site import Page, Site, web_site
from tests.tools.conftest import Layout, make_policy
from tray_app.tools.builtin.web_tools import WEB_TOOLS
from tray_app.tools.lazy import manifest_tools
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.toolbox import Toolbox

HOSTILE = "标题 \u202eevil\u202c 😀 مرحبا"
PAGE = f"""<!doctype html><html><head><title>{HOSTILE}</title>
<style>body{{color:red}}</style><script>alert('no')</script></head>
<body><nav>menu menu</nav><h1>你好，世界</h1><p>First <b>bold</b> and
<a href="/next">a link</a>.</p><ul><li>one</li><li>two 😀</li></ul>
<pre>  indented
    code</pre></body></html>""".encode()


def fetcher(layout: Layout, *allowed: str) -> Toolbox:
    policy = make_policy(layout, web_allowed_hosts=list(allowed))
    return Toolbox(policy, registry=ToolRegistry(WEB_TOOLS))


@pytest.fixture
def site() -> object:
    with web_site({"/": Page(PAGE)}) as running:
        yield running


def test_a_page_arrives_as_markdown_text(layout: Layout, site: Site) -> None:
    result = fetcher(layout, site.host).execute("web_fetch", {"url": site.base + "/"})
    assert result["success"], result
    text = result["text"]
    assert result["title"] == HOSTILE
    assert "# 你好，世界" in text and "First bold and" in text
    assert f"[a link]({site.base}/next)" in text
    assert "- one" in text and "- two 😀" in text and "  indented\n    code" in text
    assert "alert" not in text and "color:red" not in text and "menu" not in text
    assert "next_start" not in result and result["total_chars"] == len(text)
    assert site.requests == [("/", site.host)]


def test_start_and_next_start_walk_the_whole_text(layout: Layout) -> None:
    words = " ".join(f"词{i}" for i in range(3000))
    with web_site({"/long": Page(words.encode(), "text/plain; charset=utf-8")}) as long_site:
        box, parts, start = fetcher(layout, long_site.host), [], 0
        for _ in range(100):
            args = {"url": long_site.base + "/long", "max_chars": 1000, "start": start}
            result = box.execute("web_fetch", args)
            parts.append(result["text"])
            if "next_start" not in result:
                break
            start = result["next_start"]
    assert "".join(parts) == words and len(parts) == len(words) // 1000 + 1


def test_a_loopback_site_not_allowed_gets_no_request(layout: Layout, site: Site) -> None:
    for url in (
        site.base,
        f"http://localhost:{site.port}/",
        f"http://2130706433:{site.port}/",
        f"http://0177.0.0.1:{site.port}/",
        f"http://[::ffff:127.0.0.1]:{site.port}/",
    ):
        result = fetcher(layout).execute("web_fetch", {"url": url})
        # httpx calls an octal address invalid; either way nothing is sent
        assert result["code"] in ("web_address_refused", "web_bad_url"), (url, result)
    assert site.requests == []


def test_a_redirect_to_a_port_not_allowed_reaches_nothing(layout: Layout) -> None:
    with web_site() as second, web_site() as first:
        second.pages["/secret"] = Page(b"internal")
        first.pages["/go"] = Page(b"", status=302, headers=(("Location", second.base + "/secret"),))
        result = fetcher(layout, first.host).execute("web_fetch", {"url": first.base + "/go"})
        assert result["code"] == "web_address_refused", result
        assert first.requests == [("/go", first.host)] and second.requests == []
        allowed = fetcher(layout, first.host, second.host)
        result = allowed.execute("web_fetch", {"url": first.base + "/go"})
        assert result["text"] == "internal" and result["url"] == second.base + "/secret"


def test_endless_redirects_stop(layout: Layout) -> None:
    with web_site() as loop:
        loop.pages["/a"] = Page(b"", status=301, headers=(("Location", "/a"),))
        result = fetcher(layout, loop.host).execute("web_fetch", {"url": loop.base + "/a"})
    assert result["code"] == "web_too_many_redirects" and len(loop.requests) == 6


def test_the_metadata_address_is_refused_without_connecting(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    tried: list[object] = []
    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", lambda *a, **k: tried.append(a))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: tried.append(a))
    for url in (
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://0.0.0.0/",
        "http://10.0.0.1/",
        "http://[::1]/",
        "http://224.0.0.1/",
    ):
        result = fetcher(layout).execute("web_fetch", {"url": url})
        assert result["code"] == "web_address_refused", url
    assert tried == []


def test_the_name_is_resolved_once_and_that_address_is_used(
    layout: Layout, site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(["127.0.0.1", "203.0.113.9"])  # a rebinding name: the second answer differs
    looked_up: list[str] = []

    def rebinding(host: str, port: object, *args: object, **kw: object) -> list[object]:
        if host[0].isdigit():  # the connection's own lookup of the pinned address
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (host, port))]
        looked_up.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    box = fetcher(layout, f"site.example:{site.port}")
    result = box.execute("web_fetch", {"url": f"http://site.example:{site.port}/"})
    assert result["success"], result
    assert looked_up == ["site.example"]
    assert site.requests == [("/", f"site.example:{site.port}")]


def test_other_types_pdf_and_text(layout: Layout) -> None:
    pages = {
        "/img": Page(b"\x89PNG\r\n", "image/png"),
        "/doc.pdf": Page(tiny_pdf("Hello PDF world"), "application/pdf"),
        "/t": Page("纯文本，中文".encode("gbk"), "text/plain; charset=gbk"),
        "/gone": Page(b"", status=404),
        "/ftp": Page(b""),
    }
    with web_site(pages) as files:
        box = fetcher(layout, files.host)
        assert (
            box.execute("web_fetch", {"url": files.base + "/img"})["code"] == "web_unsupported_type"
        )
        assert (
            "Hello PDF world" in box.execute("web_fetch", {"url": files.base + "/doc.pdf"})["text"]
        )
        assert box.execute("web_fetch", {"url": files.base + "/t"})["text"] == "纯文本，中文"
        assert box.execute("web_fetch", {"url": files.base + "/gone"})["code"] == "web_http_status"
        for url in ("ftp://127.0.0.1/x", "file:///etc/passwd", "javascript:alert(1)", "http://"):
            assert box.execute("web_fetch", {"url": url})["code"] == "web_bad_url", url


def test_hostile_pages_cost_time_in_proportion(layout: Layout) -> None:
    deep = b"<p>before</p>" + b"<div>" * 200_000 + b"deep" + b"</div>" * 200_000
    wide = b'<p title="' + b"x" * 3_000_000 + b'">after a huge attribute</p>'
    huge = b"<p>" + "字".encode() * 4_000_000 + b"</p>"  # 12 MB: only the first 10 are read
    with web_site({"/deep": Page(deep), "/wide": Page(wide), "/huge": Page(huge)}) as bad:
        box = fetcher(layout, bad.host)
        started = time.process_time()
        assert "before" in box.execute("web_fetch", {"url": bad.base + "/deep"})["text"]
        assert (
            box.execute("web_fetch", {"url": bad.base + "/wide"})["text"]
            == "after a huge attribute"
        )
        result = box.execute("web_fetch", {"url": bad.base + "/huge", "max_chars": 500})
        assert "body_cut" in result and len(result["text"]) == 500 and result["next_start"] == 500
        assert time.process_time() - started < 30  # a guard against a quadratic walk, not a timing


def test_it_is_declared_network_bound_and_read_risk() -> None:
    (tool,) = WEB_TOOLS
    assert tool.network and tool.risk.value == "read"
    lazy = {t.name: t for t in manifest_tools()}
    assert lazy["web_fetch"].network and not lazy["read_file"].network


def tiny_pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` (the offsets of its cross-reference table computed)."""
    stream = f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
