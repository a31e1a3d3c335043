"""The real ``metona-tray chat`` against servers that are strict or sloppy about tool calls.

- Mistral-family servers refuse a history whose tool-call ids are not nine letters or digits
  (HTTP 400: vllm-project/vllm#9019 and #12332, jackmpcollins/magentic#276): the second request
  of a tool loop must be accepted, on both wires.
- Ollama's ``/v1`` streams parallel calls all at ``index: 0`` (ollama/ollama#15457): both writes
  must happen.
- A model writing a JSON file passes ``content`` as the object: it is written formatted, and
  the terminal says so in its language.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import text_turn, tool_turn

NINE = re.compile(r"[A-Za-z0-9]{9}")
DATA = {"名前": "テスト 🙂", "items": [1, 2, {"ok": True}], "rtl": "\u202eabc"}
NOTES = {
    "en_US.UTF-8": "the content came as JSON data: written as formatted JSON text",
    "zh_CN.UTF-8": "内容是 JSON 数据：已按格式化的 JSON 文本写入",
}


@pytest.mark.parametrize("lang", list(NOTES))
@pytest.mark.parametrize("wire", ["openai", "ollama"])
def test_a_tool_loop_on_a_strict_server_writes_both_files(
    wire: str, lang: str, metona_home: Path, tmp_path: Path
) -> None:
    fake = (
        FakeOpenAI(same_index=True, mistral_ids=True)
        if wire == "openai"
        else FakeOllama(mistral_ids=True)
    )
    calls = [
        ("write_file", {"path": "data.json", "content": DATA}),
        ("write_file", {"path": "plain.txt", "content": "第二个 file"}),
    ]
    work = tmp_path / "work"
    work.mkdir()
    with fake:
        fake.script(tool_turn(calls, chunk_chars=3), text_turn("Both files are written."))
        command = chat_command(fake.url, work, "--provider", wire, "--yes", "write two files")
        result = run_cli(command, cli_env(metona_home, tmp_path / "home", lang=lang))
        requests = fake.chat_requests
    assert result.returncode == 0, result.stderr
    assert (work / "data.json").read_text("utf-8") == json.dumps(DATA, indent=2, ensure_ascii=False)
    assert (work / "plain.txt").read_text("utf-8") == "第二个 file"
    assert "Both files are written." in result.stdout
    assert NOTES[lang] in result.stdout + result.stderr
    assert len(requests) == 2  # the history with the calls was accepted, not refused
    sent = requests[1]["messages"]
    asked = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert len(asked) == 2 and asked == answered
    assert all(NINE.fullmatch(i) for i in asked)
