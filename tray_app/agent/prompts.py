"""The system prompt, with the tool safety rules (the catalogue's ``prompt.*``, in the turn's
language)."""

from __future__ import annotations

from tray_app.i18n import t


def build_system_prompt(
    base: str, *, tools_enabled: bool, language: str, workspace: str | None
) -> str:
    """The user's own system prompt, plus the safety rules whenever tools are offered."""
    parts = [base.strip()] if base.strip() else []
    if tools_enabled:
        parts.append(t("prompt.safety_rules", language))
        if workspace:
            parts.append(t("prompt.workspace", language, workspace=workspace))
    return "\n\n".join(parts)
