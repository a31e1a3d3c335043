"""list_allowed_directories: the folders the tools may use, so a model stops guessing paths."""

from __future__ import annotations

from tray_app.tools.base import Risk, Tool, ToolArgs, ToolContext
from tray_app.tools.result import ToolResult


class ListAllowedDirectoriesArgs(ToolArgs):
    pass


def list_allowed_directories(ctx: ToolContext, args: ListAllowedDirectoriesArgs) -> ToolResult:
    """The allowed folders the tools can use: a configured one that is blocked (``~/.ssh``,
    a link into it, the app's own folder) is refused for every access, so it is not named."""
    policy = ctx.policy
    return {
        "success": True,
        "directories": [str(root) for root in policy.allowed_roots if not policy.is_blocked(root)],
        "workspace": str(policy.workspace),
        "note": (
            "Relative paths start at the workspace. Inside these folders, secret files "
            "(.env, keys), system and credential folders stay out of reach."
        ),
    }


TOOL = Tool(
    name="list_allowed_directories",
    description=(
        "List the folders the file tools may use, and the workspace folder that relative "
        "paths start from."
    ),
    args_model=ListAllowedDirectoriesArgs,
    risk=Risk.READ,
    handler=list_allowed_directories,
)
