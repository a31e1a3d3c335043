"""The audit log (one JSON line per tool call, no file contents) and the app log."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tray_app.base.logs import LOG_FILE, setup_logging
from tray_app.base.messages import ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store.audit import AUDIT_FILE, AuditLog, summarize_arguments

SECRET_TEXT = "TOP-SECRET-FILE-BODY"


def call(**fields: object) -> ToolCallRecord:
    data: dict[str, object] = {
        "call_id": "c_1",
        "session_id": "s_1",
        "message_id": "m_1",
        "name": "write_file",
        "arguments": {"path": "/home/u/notes.md", "content": SECRET_TEXT * 10},
        "risk": "write",
        "status": "success",
        "decision": "approved",
        "decided_by": "popup",
        "result": {"success": True, "bytesWritten": 200},
        "duration_ms": 8.25,
    }
    data.update(fields)
    return ToolCallRecord.model_validate(data)


@pytest.fixture
def audit(app_paths: AppPaths) -> Iterator[AuditLog]:
    log = AuditLog(app_paths)
    yield log
    log.close()


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_tool_call_becomes_one_line_without_file_contents(
    audit: AuditLog, app_paths: AppPaths, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    audit.record(call())
    audit.record(
        call(
            call_id="c_2",
            name="run_command",
            arguments={"command": "echo " + "x" * 500, "cwd": "/home/u", "timeout": 5000},
            risk="command",
            status="error",
            decided_by="notification",
            result={"success": False, "error": "exit code 1"},
        )
    )
    path = app_paths.log_dir / AUDIT_FILE
    first, second = lines(path)
    assert set(first) >= {"time", "session", "call_id", "tool", "args", "risk", "decision"}
    assert first["session"] == "s_1" and first["tool"] == "write_file"
    assert first["args"] == {"path": "/home/u/notes.md", "content": {"bytes": 200}}
    assert (first["decision"], first["decided_by"], first["status"]) == (
        "approved",
        "popup",
        "success",
    )
    assert first["duration_ms"] == 8.25 and "error" not in first
    assert SECRET_TEXT not in path.read_text(encoding="utf-8")
    args = second["args"]
    assert isinstance(args, dict)
    assert len(args["command"]) < 260 and args["command"].startswith("echo xxx")
    assert (args["cwd"], args["timeout"]) == ("/home/u", 5000)
    assert second["error"] == "exit code 1"
    assert "c_1" not in caplog.text  # its own logger: nothing reaches the app log


def test_arguments_are_summarised_by_kind() -> None:
    summary = summarize_arguments(
        {
            "paths": ["/a", "/b"],
            "query": "TODO",
            "recursive": True,
            "new_text": "日本語",
            "options": {"content": "abc", "depth": 2},
            "many": list(range(30)),
        }
    )
    assert summary["paths"] == ["/a", "/b"] and summary["query"] == "TODO"
    assert summary["recursive"] is True
    assert summary["new_text"] == {"bytes": 9}
    assert summary["options"] == {"content": {"bytes": 3}, "depth": 2}
    assert len(summary["many"]) == 21 and summary["many"][-1] == "... 10 more"


def test_the_audit_log_rotates_by_size(app_paths: AppPaths) -> None:
    audit = AuditLog(app_paths, max_bytes=2_000, backup_count=2)
    try:
        for index in range(60):
            audit.record(call(call_id=f"c_{index}"))
    finally:
        audit.close()
    files = sorted(p.name for p in app_paths.log_dir.iterdir())
    assert files == [AUDIT_FILE, f"{AUDIT_FILE}.1", f"{AUDIT_FILE}.2"]
    for name in files:
        path = app_paths.log_dir / name
        assert path.stat().st_size <= 2_000
        assert all(entry["tool"] == "write_file" for entry in lines(path))
    assert lines(app_paths.log_dir / AUDIT_FILE)[-1]["call_id"] == "c_59"


def test_the_app_log_is_a_rotating_file_set_up_once(app_paths: AppPaths) -> None:
    root = logging.getLogger()
    level = root.level
    handler = setup_logging(app_paths, level=logging.INFO, max_bytes=500, backup_count=1)
    try:
        assert setup_logging(app_paths) is handler
        assert sum(h is handler for h in root.handlers) == 1
        logging.getLogger("tray_app.test").info("hello from the test")
        logging.getLogger("tray_app.test").debug("too detailed")
        handler.flush()
        text = (app_paths.log_dir / LOG_FILE).read_text(encoding="utf-8")
        assert "INFO tray_app.test" in text and "hello from the test" in text
        assert "too detailed" not in text
        for _ in range(20):
            logging.getLogger("tray_app.test").warning("filling the log " * 3)
        assert (app_paths.log_dir / f"{LOG_FILE}.1").exists()
    finally:
        root.removeHandler(handler)
        handler.close()
        root.setLevel(level)
