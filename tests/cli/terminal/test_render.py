"""The terminal's rendering of notices and approval prompts."""

from __future__ import annotations

import io

import pytest

from tray_app.base.events import Notice
from tray_app.cli.terminal_render import TextRenderer, result_summary

RETRY = Notice(
    session_id="s",
    level="warning",
    code="server_busy_retry",
    message="模型服务器繁忙（HTTP 503），5 秒后重试（第 1 次，共 2 次）。",
    args={"status": 503, "seconds": 5, "attempt": 1, "attempts": 2},
)


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_loop_notice_prints_as_the_loop_wrote_it(language: str) -> None:
    """The loop writes its notices in the turn's language (agent/notices.py)."""
    out, err = io.StringIO(), io.StringIO()
    TextRenderer(out, err, language=language).render(RETRY)
    assert err.getvalue() == f"\n[warning] {RETRY.message}\n"
    assert out.getvalue() == ""


def _approval(preview: dict) -> object:
    from tray_app.base.events import ApprovalNeeded

    return ApprovalNeeded(
        session_id="s",
        call_id="c",
        name="write_file",
        arguments={"path": "~/.bashrc"},
        risk="write",
        preview=preview,
        can_remember=True,
        expires_at=0,
    )


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "runs in every new terminal shell"), ("zh-CN", "会在每个新终端中运行")],
)
def test_the_approval_prompt_names_the_persistence_risk(language: str, words: str) -> None:
    from tray_app.cli.terminal_render import approval_text

    warning = {"code": "shell", "text": "runs in every new terminal shell", "path": "/h/.bashrc"}
    text = approval_text(_approval({"kind": "diff", "persistence": warning}), language)  # type: ignore[arg-type]
    assert "/h/.bashrc" in text and words in text


def test_the_approval_prompt_of_an_edit_and_a_move() -> None:
    from tray_app.cli.terminal_render import approval_text

    edit = {"kind": "diff", "size_before": 10, "size_after": 12, "format": "utf-8, CRLF"}
    assert "overwrites: 10 -> 12 bytes (utf-8, CRLF)" in approval_text(_approval(edit))  # type: ignore[arg-type]
    move = {"kind": "move", "path": "/w/a", "destination": "/w/b", "deletes": True}
    assert "replaces the file at the destination: /w/a -> /w/b" in approval_text(_approval(move))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "coded", "said"),
    [
        (
            "en",
            False,
            "bytesWritten=12 (undo is not available: the undo journal's folder /d/undo is full)",
        ),
        (
            "en",
            True,
            "bytesWritten=12 (undo is not available: the undo journal's folder /d/undo is full)",
        ),
        # A result from before reason codes keeps the journal's sentence.
        ("zh-CN", False, "已写入 12 字节（无法撤销：the undo journal's folder /d/undo is full）"),
        ("zh-CN", True, "已写入 12 字节（无法撤销：撤销记录所在的文件夹 /d/undo⟨U+202E⟩ 已满）"),
    ],
)
def test_a_change_without_an_undo_copy_says_so(language: str, coded: bool, said: str) -> None:
    result: dict[str, object] = {
        "success": True,
        "path": "/w/笔记 📝.txt",
        "bytesWritten": 12,
        "undo": "unavailable",
        "undoNote": "undo is not available: the undo journal's folder /d/undo is full",
    }
    if coded:
        result["card_undo_reason"] = {"code": "journal_full", "params": {"folder": "/d/undo\u202e"}}
    assert result_summary(result, language) == said
    assert "undo" not in result_summary({"success": True, "bytesWritten": 12}, language)
    assert "撤销" not in result_summary({"success": True, "bytesWritten": 12}, language)


@pytest.mark.parametrize(
    ("language", "budget", "changed"),
    [
        ("en", "over this answer's budget for written data (900 of 1048 bytes", "changed after"),
        ("zh-CN", "超出本次回答写入数据的额度（900/1048 字节", "文件在你允许后已变化"),
    ],
)
def test_the_approval_prompt_names_the_guard(language: str, budget: str, changed: str) -> None:
    from tray_app.cli.terminal_render import approval_text

    over = {"name": "bytes_written", "limit": 1048, "used": 900, "call": 600}
    preview = {"kind": "diff", "text": "-甲\n+乙 🙂\n", "budget": over, "changed_since_shown": True}
    text = approval_text(_approval(preview), language)  # type: ignore[arg-type]
    assert budget in text and changed in text and "+乙 🙂" in text


def test_a_tool_call_renders_from_the_record_it_carries() -> None:
    """The terminal reads the same record as the page: ``call.name``, ``call.arguments``."""
    from tray_app.base.events import ToolCallEvent, ToolCallUpdate
    from tray_app.base.messages import ToolCallRecord

    call = ToolCallRecord(
        call_id="c1",
        session_id="s",
        message_id="m",
        name="read_file",
        arguments={"path": "笔记 👩🏽‍💻.txt", "content": "长" * 500},
    )
    out, err = io.StringIO(), io.StringIO()
    renderer = TextRenderer(out, err, language="en")
    renderer.render(ToolCallEvent(session_id="s", call=call))
    renderer.render(
        ToolCallUpdate(session_id="s", call_id="c1", status="success", result={"success": True})
    )
    lines = err.getvalue().strip().splitlines()
    assert lines[0] == "[tool] read_file path=笔记 👩🏽‍💻.txt"
    assert lines[1].startswith("[tool] ") and "read_file success" in lines[1]
    assert out.getvalue() == ""


def test_a_result_sized_for_the_model_says_what_arrived() -> None:
    """The terminal shows what the model received: the lines and where it goes on, or how
    many entries were left out."""
    read = {"success": True, "lines": 500, "line_range": [1, 120], "next_start_line": 121}
    assert result_summary(read) == "lines 1-120 of 500; next from line 121"
    listing = {"success": True, "total": 400, "entries": [], "entries_omitted": 350}
    assert result_summary(listing) == "total=400 (entries_omitted=350)"


def test_failure_codes_are_said_in_chinese_like_the_page() -> None:
    import json
    from pathlib import Path

    locales = Path(__file__).resolve().parents[3] / "web" / "locales"
    zh = json.loads((locales / "zh-CN.json").read_text(encoding="utf-8"))
    page = {k.removeprefix("tool_error."): v for k, v in zh.items() if k.startswith("tool_error.")}
    # the terminal says the page's own text: every code without placeholders, word for word
    for code, text in page.items():
        if "{" not in text:
            failed = {"success": False, "error": "own", "code": code, "params": {}}
            assert result_summary(failed, "zh-CN") == text, code
    repeated = {
        "success": False,
        "error": "this call was already made twice in this turn; its result has not changed",
        "code": "repeated",
        "params": {"n": 2},
    }
    said = "未执行：本次回答中此调用已执行过 2 次，结果没有变化"
    assert result_summary(repeated, "zh-CN") == said
    assert result_summary(repeated, "en") == repeated["error"]
    # Parameters a server did not send, or a code nobody knows: the tool's own sentence.
    assert result_summary({**repeated, "params": {}}, "zh-CN") == repeated["error"]
    unknown = {"success": False, "error": "boom 💥 \u202e", "code": "x"}
    # (a direction control from a server is written out: it must not reorder the line)
    assert result_summary(unknown, "zh-CN") == "boom 💥 ⟨U+202E⟩"


def test_a_successful_calls_summary_is_said_in_chinese() -> None:
    """The words around a result (moved to, applied edits, lines read) in a Chinese terminal;
    a hostile destination has its direction control written out."""
    from tray_app.cli.terminal_render import result_summary

    moved = result_summary({"success": True, "destination": "/w/报告\u202egpj.exe"}, "zh-CN")
    assert moved == "已移动到 /w/报告⟨U+202E⟩gpj.exe"
    edits = {"success": True, "edits": [{}, {}], "diff": "--- a\n+++ b\n-旧\n+新\n"}
    assert result_summary(edits, "zh-CN") == "已应用 2 处修改\n    -旧\n    +新"
    assert result_summary({**edits, "dry_run": True}, "en").startswith("would apply 2 edit(s)")
    page = {"success": True, "line_range": [1, 200], "lines": 900, "next_start_line": 201}
    assert result_summary(page, "zh-CN") == "第 1-200 行，共 900 行；下次从第 201 行开始"
    assert result_summary(page, "en") == "lines 1-200 of 900; next from line 201"


def test_a_failed_answer_says_its_cause_in_chinese_with_the_apps_words_quoted() -> None:
    from tray_app.cli.terminal_lines import turn_failed

    message = "cannot reach 127.0.0.1:9 \u202e (refused)"
    assert turn_failed("provider_unavailable", message, "en") == f"error: {message}"
    said = turn_failed("provider_unavailable", message, "zh-CN")
    assert said == "错误：无法连接模型服务（“cannot reach 127.0.0.1:9 ⟨U+202E⟩ (refused)”）"
    assert turn_failed("a new code", "", "zh-CN") == "错误：应用内部出错了"
