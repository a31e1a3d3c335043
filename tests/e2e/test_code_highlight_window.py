"""A long code block is highlighted by the page's worker in the real popup (WebKitGTK under X).

The page is served by pywebview on http://127.0.0.1 with a CSP of script-src 'self': a
same-origin module worker (web/js/markdown/hlworker.js) must start there, or every block would fall
back to the page's thread. The real app streams a long hostile block from the fake Ollama;
the test reads back from the real page that the worker answered, the block is highlighted and
its text is exact."""

from __future__ import annotations

import json

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama, text_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]

HOSTILE = '漢字 한국어 🧑🏽‍💻 \u202eevil.exe\u202c </script><b>x</b> &lt; "q"'
BODY = "".join(f"let v{n} = '{HOSTILE}'; // {n}\n" for n in range(150))  # ~10 KB


def test_a_long_block_is_highlighted_by_the_worker_in_the_real_window(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama
) -> None:
    fake.script(text_turn(f"Code:\n\n```javascript\n{BODY}```\n\n完成.\n", chunk_chars=300))
    app.send("show")
    wait_for(lambda: app.eval_js("document.querySelector('#app').dataset.ready || null"), 20,
             "the page to boot")  # fmt: skip
    app.eval_js(
        "(function () { document.querySelector('#prompt').value = 'code please';"
        " document.querySelector('#composer').requestSubmit(); return 1; })()"
    )
    pre = "document.querySelector('.msg.assistant .content pre')"
    wait_for(
        lambda: app.eval_js(
            f"({pre} && !{pre}.hasAttribute('data-hl-pending')"
            f" && !{pre}.querySelector('code:not(.hljs)')) || null"
        ),
        60,
        "every line group of the block to be highlighted",
    )
    assert app.eval_js("document.documentElement.dataset.highlighter || null") == "worker"
    text = app.eval_js(f"Array.from({pre}.children).map((g) => g.textContent).join('\\n')")
    assert text == BODY
    assert app.eval_js(f"{pre}.querySelectorAll('span[class^=\"hljs-\"]').length") > 100
    assert app.eval_js(f"{pre}.querySelectorAll('script, b').length") == 0
    assert app.eval_js(f"{pre}.querySelectorAll('.bidi-mark').length") == 300
    assert json.dumps(app.state()["lost"]) == "0"
    desktop.screenshot("code-highlight-worker")
