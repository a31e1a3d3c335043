"""Model servers: Ollama's native API and OpenAI-compatible ones.

httpx's package import also tries its optional command-line client (``httpx._main``), which
pulls in click, rich and pygments whenever they happen to be installed (the MCP SDK's
dependencies bring them): ~25 ms of CPU on every ``metona-tray chat`` for a tool the app never
runs. A ``None`` entry in ``sys.modules`` makes that one optional import fail fast, and httpx
falls back to its stub ``main``; nothing else of httpx changes.
"""

import sys

if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
