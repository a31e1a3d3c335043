"""The settings model and its JSON file.

Every field has a default, so a missing, corrupt or partly invalid file never stops the app:
bad values fall back one by one with a logged warning. ``version`` drives migrations of files
written by older versions (including the design document's ``ToolConfig`` shape).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1
DEFAULT_ENDPOINT = "http://127.0.0.1:11434"

ConfirmationMode = Literal["all_writes", "delete_only", "full_auto"]
ProviderKind = Literal["ollama", "openai"]


def default_hotkey() -> str:
    return "Cmd+Shift+Space" if sys.platform == "darwin" else "Ctrl+Alt+Space"


def default_allowed_dirs() -> list[str]:
    return [str(Path.home()), tempfile.gettempdir()]


class Settings(BaseModel):
    """Everything the user can set (SPEC section 7), with the defaults a new user gets."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    version: int = SETTINGS_VERSION

    # Model server
    provider: ProviderKind = "ollama"
    endpoint: str = DEFAULT_ENDPOINT
    default_model: str = ""
    think: bool = True
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    num_ctx: int = Field(default=24576, ge=512, le=1_048_576)
    keep_alive: str = "5m"
    max_rounds: int = Field(default=10, ge=1, le=100)
    system_prompt: str = ""

    # Tools and sandbox
    tools_enabled: bool = True
    disabled_tools: list[str] = Field(default_factory=list)
    allowed_dirs: list[str] = Field(default_factory=default_allowed_dirs)
    blocked_dirs: list[str] = Field(default_factory=list)
    confirmation_mode: ConfirmationMode = "all_writes"
    confirmation_timeout: float = Field(default=300.0, ge=5.0, le=86_400.0)
    run_command_enabled: bool = False
    sandbox_enabled: bool = False
    tool_result_limit: int = Field(default=16_000, ge=1_000, le=1_000_000)

    # Desktop
    hotkey: str = Field(default_factory=default_hotkey)
    language: Literal["system", "en", "zh-CN"] = "system"
    theme: Literal["system", "light", "dark"] = "system"
    start_at_login: bool = False

    @field_validator("endpoint")
    @classmethod
    def _endpoint_is_http(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("the endpoint must start with http:// or https://")
        return value

    @field_validator("allowed_dirs", "blocked_dirs")
    @classmethod
    def _dirs_are_absolute(cls, value: list[str]) -> list[str]:
        cleaned: list[str] = []
        for item in value:
            expanded = os.path.expanduser(item.strip())
            if not os.path.isabs(expanded):
                raise ValueError(f"{item!r} is not an absolute folder path")
            if expanded not in cleaned:
                cleaned.append(expanded)
        return cleaned


def _migrate(raw: dict[str, Any]) -> dict[str, Any]:
    """Bring an older file to the current shape; unknown keys are left for the warning."""
    data = dict(raw)
    version = data.get("version", 0)
    if not isinstance(version, int) or version < 1:
        # v0: the design document's ToolConfig field names.
        renames = {
            "enabled": "tools_enabled",
            "allowedDirs": "allowed_dirs",
            "blockedDirs": "blocked_dirs",
            "runCommandEnabled": "run_command_enabled",
            "confirmationMode": "confirmation_mode",
        }
        for old, new in renames.items():
            if old in data and new not in data:
                data[new] = data.pop(old)
        modes = {"all": "all_writes", "write-only": "delete_only", "none": "full_auto"}
        mode = data.get("confirmation_mode")
        if isinstance(mode, str) and mode in modes:
            data["confirmation_mode"] = modes[mode]
        enabled_tools = data.pop("enabledTools", None)
        if isinstance(enabled_tools, list) and "disabled_tools" not in data:
            known = ["read_file", "write_file", "list_directory", "search_files",
                     "create_directory", "delete_file", "run_command"]
            data["disabled_tools"] = [t for t in known if t not in enabled_tools]
    data["version"] = SETTINGS_VERSION
    return data


def settings_from_dict(raw: object) -> Settings:
    """Build settings, keeping every valid value and warning about each bad or unknown one."""
    if not isinstance(raw, dict):
        log.warning("settings file is not a JSON object; using defaults")
        return Settings()
    data = _migrate(raw)
    good: dict[str, Any] = {}
    for key, value in data.items():
        if key not in Settings.model_fields:
            log.warning("unknown setting %r ignored", key)
            continue
        try:
            Settings.model_validate({key: value})
        except ValidationError as exc:
            reason = exc.errors()[0].get("msg", "invalid")
            log.warning("setting %r has an invalid value (%s); using the default", key, reason)
            continue
        good[key] = value
    return Settings.model_validate(good)


def load_settings(path: Path) -> Settings:
    """Read the settings file; a missing or unreadable one gives defaults, never an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        log.warning("cannot read settings file %s (%s); using defaults", path, exc)
        return Settings()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        log.warning("settings file %s is not valid JSON (%s); using defaults", path, exc)
        return Settings()
    return settings_from_dict(raw)


def save_settings(settings: Settings, path: Path) -> None:
    """Write atomically: a crash mid-save leaves the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = settings.model_dump_json(indent=2).encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
