"""The terminal's own text for notices that carry values (the busy-server retry)."""

from __future__ import annotations

import io

import pytest

from tray_app.core.events import Notice
from tray_app.terminal_render import TextRenderer

RETRY = Notice(
    session_id="s",
    level="warning",
    code="server_busy_retry",
    message="Ollama is busy (HTTP 503); trying again in 5 s (retry 1 of 2).",
    args={"status": 503, "seconds": 5, "attempt": 1, "attempts": 2},
)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "The model server is busy (HTTP 503); trying again in 5 s (retry 1 of 2)."),
        ("zh-CN", "模型服务器繁忙（HTTP 503），5 秒后重试（第 1 次，共 2 次）。"),
    ],
)
def test_the_retry_notice_in_both_languages(language: str, text: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    TextRenderer(out, err, language=language).render(RETRY)
    assert err.getvalue() == f"\n[warning] {text}\n"
    assert out.getvalue() == ""


def test_a_notice_without_its_values_prints_its_message() -> None:
    err = io.StringIO()
    broken = RETRY.model_copy(update={"args": {}})
    TextRenderer(io.StringIO(), err, language="zh-CN").render(broken)
    assert err.getvalue() == f"\n[warning] {RETRY.message}\n"
