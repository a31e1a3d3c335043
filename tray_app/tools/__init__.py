"""The model's hands: tool interface, sandbox policy, the seed tools, the undo journal."""

from tray_app.tools.base import Risk, Tool, Toolbox, ToolContext, ToolRegistry

__all__ = ["Risk", "Tool", "ToolContext", "ToolRegistry", "Toolbox"]
