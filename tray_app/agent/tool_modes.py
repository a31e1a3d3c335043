"""How each model is offered the tools: natively, described in the prompt, or not at all.

Ollama says per model whether its template takes tools (``/api/show`` capabilities); sending
``tools`` to a model without them is an HTTP 400, so such a model (gemma3, many imported
GGUFs) used to get a plain chat, although most follow a tool prompt well. Now a model gets:

- the mode the user or ``models check`` chose for it (``Settings.model_tool_modes``), else
- "native" when its server says it takes tools, "prompt" when it says it does not.

"native" is never used for a model the server says cannot take tools (the server would refuse
the request): such a choice falls back to "prompt".
"""

from __future__ import annotations

from dataclasses import dataclass

from tray_app.providers.base import ModelInfo
from tray_app.store.settings import Settings, ToolCheck, ToolMode

#: The mode a check's finding puts a model in.
MODE_FOR_CHECK: dict[ToolCheck, ToolMode] = {"native": "native", "text": "prompt", "none": "off"}


def model_key(name: str) -> str:
    """The name per-model settings are kept under: Ollama's ``gemma3`` is ``gemma3:latest``,
    as the server lists it, so both spellings find the same entry."""
    name = name.strip()
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


@dataclass(frozen=True)
class ModeChoice:
    """The mode in force for a model, and whether someone chose it (else it is automatic)."""

    mode: ToolMode
    chosen: bool


def tool_mode(info: ModelInfo, settings: Settings) -> ModeChoice:
    """The tool mode of ``info``'s model under ``settings`` (see the module's rules)."""
    chosen = settings.model_tool_modes.get(model_key(info.name))
    native_ok = info.supports("tools")
    if chosen is None:
        return ModeChoice("native" if native_ok else "prompt", False)
    if chosen == "native" and not native_ok:
        return ModeChoice("prompt", True)
    return ModeChoice(chosen, True)


def tool_check(name: str, settings: Settings) -> ToolCheck | None:
    """What the last ``models check`` of this model found, if it was checked."""
    return settings.model_tool_checks.get(model_key(name))
