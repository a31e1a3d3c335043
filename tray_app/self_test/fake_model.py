"""A tiny Ollama stand-in for ``--self-test``: a real HTTP server on 127.0.0.1, in this process.

It speaks just enough of Ollama's API (``/api/version``, ``/api/tags``, ``/api/show`` and a
streamed ``/api/chat``) for one scripted agent turn: the first round asks for
``list_directory`` on the folder it is given; once the tool's result comes back it answers
``ANSWER_OK`` if the result names ``MARKER_FILE``, else ``ANSWER_MISSING``. That proves the
provider, the agent loop, a tool and the result's way back all work in this build, with no
model installed. Bodies are read to at most ``MAX_BODY`` bytes.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "self-test:latest"
MARKER_FILE = "\u81ea\u68c0-✓-ünï.txt"  # a CJK, symbol and accented name
ANSWER_OK = "Self-test answer: the tool saw \u81ea\u68c0 ✓"
ANSWER_MISSING = "Self-test answer: the tool result did not name the marker file"
MAX_BODY = 16 * 1024 * 1024


class FakeModel:
    """``with FakeModel(folder) as fake: fake.url`` — serves until the block ends."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.chats = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="metona-self-test-model", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def reply_to(self, messages: list[Any]) -> list[dict[str, Any]]:
        """The stream's messages for one ``/api/chat`` request."""
        self.chats += 1
        results = [
            str(m.get("content", ""))
            for m in messages
            if isinstance(m, dict) and m.get("role") == "tool"
        ]
        if not results:
            call = {"function": {"name": "list_directory", "arguments": {"path": self.folder}}}
            return [{"role": "assistant", "content": "", "tool_calls": [call]}]
        text = ANSWER_OK if any(MARKER_FILE in r for r in results) else ANSWER_MISSING
        return [{"role": "assistant", "content": text[i : i + 8]} for i in range(0, len(text), 8)]


def _show() -> dict[str, Any]:
    return {
        "details": {"family": "llama", "format": "gguf", "parameter_size": "1B"},
        "model_info": {"general.architecture": "llama", "llama.context_length": 8192},
        "capabilities": ["completion", "tools"],
    }


def _handler(fake: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _body(self) -> dict[str, Any]:
            length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
            try:
                data = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return {}
            return data if isinstance(data, dict) else {}

        def _json(self, status: int, obj: Any) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/api/version":
                self._json(200, {"version": "0.12.10"})
            elif self.path == "/api/tags":
                tag = {"name": MODEL, "model": MODEL, "size": 1, "details": _show()["details"]}
                self._json(200, {"models": [tag]})
            else:
                self._json(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = self._body()
            if self.path == "/api/show":
                self._json(200, _show())
            elif self.path == "/api/chat":
                self._chat(body)
            else:
                self._json(404, {"error": "not found"})

        def _chat(self, body: dict[str, Any]) -> None:
            messages = body.get("messages")
            lines = [
                {"model": MODEL, "message": message, "done": False}
                for message in fake.reply_to(messages if isinstance(messages, list) else [])
            ]
            lines.append(
                {
                    "model": MODEL,
                    "message": {"role": "assistant", "content": ""},
                    "done": True,
                    "done_reason": "stop",
                    "prompt_eval_count": 10,
                    "eval_count": len(lines),
                }
            )
            data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
