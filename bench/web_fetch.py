"""web_fetch of a 2 MB HTML page from a real site on 127.0.0.1: the CPU time of the whole call
(address check, HTTP, lxml's parse and the walk into Markdown), against a 0.5 s budget.

    python -m bench.web_fetch
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from tests.fakes.web_site import Page, web_site
from tray_app.tools.builtin.web_tools import WEB_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

PAGE_BYTES = 2 * 1024 * 1024


def article(size: int) -> bytes:
    """A page shaped like an article with its site around it: paragraphs with links and markup,
    lists, a table, scripts and styles, until ``size`` bytes."""
    head = (
        "<!doctype html><html><head><meta charset=utf-8><title>长文 benchmark</title>"
        "<style>.a{color:red}</style><script>var x = 1;</script></head><body><nav>menu</nav>"
    )
    block = (
        "<section class='post'><h2>标题 heading</h2><p class='lead'>Some <b>bold</b> and "
        "<i>italic</i> text, 中文内容 😀, with <a href='/page?id=1'>a link</a> and more words "
        "to fill a line the way prose does.</p><ul><li>one</li><li>two</li></ul>"
        "<table><tr><td>a</td><td>b</td></tr></table><script>track();</script></section>"
    )
    body, parts = head, [head]
    while len(body.encode()) < size:
        parts.append(block * 50)
        body = "".join(parts)
    return (body + "</body></html>").encode()[:size]


def bench_web_fetch() -> None:
    page = article(PAGE_BYTES)
    with tempfile.TemporaryDirectory(prefix="metona-bench-web-") as tmp, web_site() as site:
        site.pages["/big"] = Page(page)
        root = Path(tmp)
        policy = SandboxPolicy(allowed_dirs=[root], home=root, web_allowed_hosts=[site.host])
        box = Toolbox(policy, registry=ToolRegistry(WEB_TOOLS))
        args = {"url": f"{site.base}/big"}
        assert box.execute("web_fetch", args)["success"]
        runs = []
        for _ in range(5):
            start = time.process_time()
            box.execute("web_fetch", args)
            runs.append(time.process_time() - start)
    cpu = statistics.median(runs)
    print(f"web     web_fetch 2 MB HTML, CPU            {cpu * 1000:10.1f} ms (budget 500)")


if __name__ == "__main__":
    bench_web_fetch()
