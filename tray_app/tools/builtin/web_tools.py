"""The web tools, each declared in its own module, in the order the model sees them."""

from __future__ import annotations

from tray_app.tools.base import Tool
from tray_app.tools.builtin import web_fetch

WEB_TOOLS: list[Tool] = [web_fetch.TOOL]
