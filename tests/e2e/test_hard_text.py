"""Hard text reaches the real popup.

pywebview 6.2.1's GTK backend cut any script with a non-ASCII character, and the whole batch
of events was lost. Here the real app streams a corpus of hard text from the fake Ollama
(answers, thinking, a tool result, the chat title) into the real WebKit page, and the test
reads the rendered text back from that page; every batch must have been acknowledged (none
lost and papered over by a resync).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama, created_at, raw_turn, text_turn, tool_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]

CJK = "中文回答：你好，世界。日本語のテキスト、한국어 텍스트"
EMOJI = "👍🏽 👩🏽‍💻 👨‍👩‍👧‍👦 🏳️‍🌈"
COMBINING = "e\u0301 a\u0308 Z\u0351\u0352"
BIDI = "مرحبا שלום \u202eevil.exe\u202c \u2066iso\u2069"
SEPARATORS = "line\u2028break para\u2029break"
TYPOGRAPHY = "— “curly” ‘quotes’ … ¼"
CORPUS = [CJK, EMOJI, COMBINING, BIDI, SEPARATORS, TYPOGRAPHY]


def lone_surrogate_turn(model: str) -> object:
    """A stream whose JSON carries half a surrogate pair and a NUL (``\\ud83d``, ``\\u0000``):
    a model can emit them, and ``json.loads`` keeps them in the string."""

    def chunk(content: str, done: bool) -> str:
        body = {
            "model": model,
            "created_at": created_at(),
            "message": {"role": "assistant", "content": content},
            "done": done,
        }
        if done:
            body.update(done_reason="stop", total_duration=1, eval_count=3, prompt_eval_count=3)
        return json.dumps(body, ensure_ascii=True)

    return raw_turn(
        [chunk("half \ud83d pair", False), chunk(" nul \x00 here ", False), chunk("tail", False),
         chunk("", True)]
    )  # fmt: skip


def page_text(app: AppProcess, selector: str) -> str:
    return str(
        app.eval_js(
            f"Array.from(document.querySelectorAll({json.dumps(selector)}))"
            ".map(e => e.textContent).join('\\n')"
        )
    )


def send_from_page(app: AppProcess, text: str) -> None:
    """What typing and Enter do, with text xdotool cannot type (the script carries it)."""
    app.eval_js(
        "(function () { const p = document.querySelector('#prompt');"
        f" p.value = {json.dumps(text, ensure_ascii=False)};"
        " document.querySelector('#composer').requestSubmit(); return 1; })()"
    )


def test_hard_text_reaches_the_page(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    (workspace / "hard.txt").write_text("\n".join(CORPUS), encoding="utf-8")
    answer = " | ".join(CORPUS)
    fake.script(
        tool_turn(
            [("read_file", {"path": "hard.txt"})], content="读取文件…", thinking="思考 " + EMOJI
        ),
        text_turn(answer, thinking="想一想：" + BIDI, chunk_chars=3),
        lone_surrogate_turn("qwen3:8b"),
    )
    app.send("show")
    wait_for(lambda: app.eval_js("document.querySelector('#app').dataset.ready || null"), 20,
             "the page to boot")  # fmt: skip
    title = "标题 " + EMOJI + " " + BIDI
    send_from_page(app, title)
    wait_for(lambda: len(fake.chat_requests) >= 2, 30, "the tool round")
    wait_for(lambda: app.core("status")["state"] == "idle", 30, "the first turn to finish")

    def shows_answer() -> bool:
        text = page_text(app, ".msg.assistant .content")
        return all(part in text for part in CORPUS)

    wait_for(shows_answer, 20, "every piece of the corpus in the streamed answer")
    thinking = page_text(app, ".msg.assistant .think-md")
    assert "思考 " + EMOJI in thinking and BIDI in thinking
    cards = page_text(app, ".tool-card")
    assert "hard.txt" in cards
    assert title in page_text(app, "#session-title, .session-list")

    send_from_page(app, "and now: 半个代理对")
    wait_for(lambda: "tail" in page_text(app, ".msg.assistant .content"), 30, "the third answer")
    last = str(app.eval_js(
        "Array.from(document.querySelectorAll('.msg.assistant .content')).pop().textContent"
    ))  # fmt: skip
    assert "half \ufffd pair" in last, repr(last)
    assert "\x00" not in last and "nul" in last

    state = app.state()
    assert state["lost"] == 0, "a batch was lost (the page resynchronised instead)"
    assert state["delivered"] > 0  # how batches group depends on timing; none may be lost
    desktop.screenshot("hard-text")
