"""The settings model and its JSON file.

Every field has a default, so a missing, corrupt or partly invalid file never stops the app:
bad values fall back one by one with a logged warning. ``version`` drives migrations of files
written by older versions (including the first design's ``ToolConfig`` shape).
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tray_app.base.atomic import atomic_write
from tray_app.base.errors import StoreError
from tray_app.history_warnings import StoreProblem
from tray_app.i18n import written_out
from tray_app.os_reasons import os_error_text, os_params

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1
DEFAULT_ENDPOINT = "http://127.0.0.1:11434"

# read_only: reading tools run, every change is refused without asking.
#: ``en``, ``zh-CN``, ``pt-BR``, ``sr-Latn-RS``: what a locale file may be called.
LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}")
ConfirmationMode = Literal["read_only", "all_writes", "delete_only", "full_auto"]
ProviderKind = Literal["ollama", "openai"]
#: How a model is offered the tools: on the wire ("native"), described in the system prompt
#: and read back from its text ("prompt"), or not at all ("off"). ``agent/tool_modes.py``.
ToolMode = Literal["native", "prompt", "off"]
#: What ``models check`` saw a model do with one small tool request: a structured call
#: ("native"), a call written in its text ("text"), or no call at all ("none").
ToolCheck = Literal["native", "text", "none"]
MODEL_NAME_MAX = 500  # a model's name as a key of the per-model settings


def default_hotkey() -> str:
    return "Cmd+Shift+Space" if sys.platform == "darwin" else "Ctrl+Alt+Space"


def default_allowed_dirs() -> list[str]:
    return [str(Path.home()), tempfile.gettempdir()]


class Settings(BaseModel):
    """Everything the user can set, with the defaults a new user gets."""

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
    # Bounds on one answer: an endless stream or a flood of calls ends with a notice.
    max_answer_chars: int = Field(default=1_000_000, ge=1_000, le=100_000_000)
    max_tool_calls_per_round: int = Field(default=16, ge=1, le=1_000)
    waiting_notice_s: float = Field(default=20.0, ge=0.1, le=3_600.0)  # silence before a notice
    system_prompt: str = ""
    # Models of an OpenAI-compatible server that can see images: such a server cannot be asked,
    # so none is assumed to (Ollama says so itself). Names as the server lists them.
    vision_models: list[str] = Field(default_factory=list, max_length=1_000)
    # Endpoints whose API key was stored in the OS keyring (the keys themselves are never here).
    # Only these are looked up: a start, the settings or a chat never open the keyring for a
    # key nobody stored (on a fresh session that would ask to create a keyring).
    api_key_endpoints: list[str] = Field(default_factory=list, max_length=1_000)
    # Per model (by ``agent.tool_modes.model_key``): the tool mode the user or a check chose;
    # a model not named here gets "native" when its server says it takes tools, else "prompt".
    model_tool_modes: dict[str, ToolMode] = Field(default_factory=dict, max_length=1_000)
    # Per model: what the last ``models check`` saw (shown beside the model in the picker).
    model_tool_checks: dict[str, ToolCheck] = Field(default_factory=dict, max_length=1_000)

    # Tools and sandbox
    tools_enabled: bool = True
    disabled_tools: list[str] = Field(default_factory=list)
    allowed_dirs: list[str] = Field(default_factory=default_allowed_dirs)
    blocked_dirs: list[str] = Field(default_factory=list)
    confirmation_mode: ConfirmationMode = "all_writes"
    confirmation_timeout: float = Field(default=300.0, ge=1.0, le=86_400.0)
    run_command_enabled: bool = False
    sandbox_enabled: bool = False
    tool_result_limit: int = Field(default=16_000, ge=1_000, le=1_000_000)
    # ``host`` or ``host:port`` entries web_fetch may reach although they are on this machine
    # or a private network (a local wiki, a NAS): every other such address is refused.
    web_allowed_hosts: list[str] = Field(default_factory=list, max_length=1_000)
    # When the undo journal cannot keep a copy (its folder full or read-only), a change is
    # refused; with this on it goes ahead and its result says undo is not available.
    allow_writes_without_undo: bool = False
    # Damage budgets of one turn: a call that would go past one asks again, in every mode and
    # under every "don't ask again" grant (0 = every such call asks).
    budget_files_removed: int = Field(default=20, ge=0, le=1_000_000)
    budget_written_mb: float = Field(default=50.0, ge=0.0, le=1_000_000.0)
    budget_commands: int = Field(default=10, ge=0, le=100_000)
    # Lasting rules, ``{"tool", "folder", "action", "created"}`` each: kept as written and
    # checked one by one by ``tray_app.tools.tool_rules`` (a bad one is reported and ignored,
    # never widening anything), so one odd entry never costs the others.
    tool_rules: list[Any] = Field(default_factory=list)
    # MCP servers, in Claude Desktop's ``mcpServers`` shape plus ``enabled``, ``timeout_s`` and
    # ``trust``; each is checked on its own by ``tray_app.mcp.config`` (one bad one costs only
    # itself), so the file keeps them as written.
    mcp_servers: dict[str, dict[str, Any]] = Field(default_factory=dict)

    # Desktop
    hotkey: str = Field(default_factory=default_hotkey)
    # "system", or a language there is a catalogue for (a file in web/locales/)
    language: str = "system"
    theme: Literal["system", "light", "dark"] = "system"
    start_at_login: bool = False
    # The popup window lives in its own process: ended after this long hidden (0 = never).
    popup_unload_after_s: float = Field(default=900.0, ge=0.0, le=604_800.0)
    hide_on_focus_loss: bool = True  # never while an approval waits or a file dialog is open

    @field_validator("language")
    @classmethod
    def _language_tag(cls, value: str) -> str:
        """``system`` or a language tag: a file in web/locales/ makes it a language (i18n
        resolves it, the source language when there is none); a file that cannot be read now
        never costs the user the settings file."""
        if value != "system" and not LANGUAGE_TAG.fullmatch(value):
            raise ValueError(f"not a language: {value[:40]!r}")
        return value

    @field_validator("endpoint")
    @classmethod
    def _endpoint_is_http(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("the endpoint must start with http:// or https://")
        return value

    @field_validator("model_tool_modes", "model_tool_checks")
    @classmethod
    def _model_names_are_short(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if not name.strip() or len(name) > MODEL_NAME_MAX:
                raise ValueError(f"a model name must have 1 to {MODEL_NAME_MAX} characters")
        return value

    @field_validator("web_allowed_hosts")
    @classmethod
    def _hosts_are_names(cls, value: list[str]) -> list[str]:
        cleaned: list[str] = []
        for item in value:
            entry = item.strip().lower()
            if not entry or len(entry) > 300 or any(c in entry for c in "/ \t@?#"):
                raise ValueError(f"{item!r} is not a host or host:port")
            if entry not in cleaned:
                cleaned.append(entry)
        return cleaned

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
        # v0: the first design's ToolConfig field names.
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
            known = [
                "read_file",
                "write_file",
                "list_directory",
                "search_files",
                "create_directory",
                "delete_file",
                "run_command",
            ]
            data["disabled_tools"] = [t for t in known if t not in enabled_tools]
    data["version"] = SETTINGS_VERSION
    _mark_older_api_key(data)
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):
        data["mcp_servers"] = {name: _fixed_ping(name, entry) for name, entry in servers.items()}
    return data


def _mark_older_api_key(data: dict[str, Any]) -> None:
    """A file written before the app recorded which endpoints have a key: an OpenAI-compatible
    server's key may be in the keyring, so its endpoint is marked (read without a prompt when
    the key is needed); an Ollama user's file marks none, so nothing opens the keyring."""
    endpoint = data.get("endpoint")
    if "api_key_endpoints" in data or data.get("provider") != "openai":
        return
    if isinstance(endpoint, str) and endpoint.strip():
        data["api_key_endpoints"] = [endpoint.strip().rstrip("/")]


# The idle check's bounds, as ``tray_app.mcp.config`` (PING_MIN_S, PING_MAX_S) checks them: the
# store imports nothing of mcp/, and tests/mcp/test_ping_migration.py keeps the two equal.
MCP_PING_MIN_S = 5.0
MCP_PING_MAX_S = 3_600.0


def _fixed_ping(name: str, entry: object) -> object:
    """An MCP server's ``ping_s`` as the current rules take it, so a value an older version
    wrote never costs the server: above 0 and below the minimum (older versions allowed any
    value up to an hour) becomes the minimum; one no version accepted (negative, over an hour,
    not a number) is dropped, so the server probes at the default. Fixed in memory; the next
    save writes it, like every migration here."""
    if not isinstance(entry, dict) or "ping_s" not in entry:
        return entry
    value = entry["ping_s"]
    try:
        seconds = math.nan if isinstance(value, bool) else float(value)
    except (TypeError, ValueError, OverflowError):
        seconds = math.nan
    usable = seconds == 0 or MCP_PING_MIN_S <= seconds <= MCP_PING_MAX_S  # NaN: never
    if usable and isinstance(value, (int, float)):
        return entry
    fixed = dict(entry)
    if usable:
        fixed["ping_s"] = seconds  # "12" in a file edited by hand: the number it says
    elif 0 < seconds < MCP_PING_MIN_S:
        fixed["ping_s"] = MCP_PING_MIN_S  # a value once allowed: no warning on every command
        log.info(
            "MCP server %r: idle check %.40r s is below the minimum; using %g s",
            name,
            value,
            MCP_PING_MIN_S,
        )
    else:
        del fixed["ping_s"]
        log.warning("MCP server %r: idle check %.40r is not usable; using the default", name, value)
    return fixed


def int_bounds(field: str) -> tuple[int, int]:
    """The inclusive range an int setting accepts (so usage errors can name it)."""
    low, high = -(2**63), 2**63 - 1
    for rule in Settings.model_fields[field].metadata:
        low = int(getattr(rule, "ge", low))
        high = int(getattr(rule, "le", high))
    return low, high


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


def backup_file(path: Path) -> Path:
    """Where the previous good settings file is kept (``settings.json.bak``)."""
    return path.with_name(path.name + ".bak")


def _read_object(path: Path) -> dict[str, Any]:
    """The file's JSON object; OSError or ValueError (bad UTF-8, bad JSON, not an object)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise ValueError("it does not hold a JSON object")
    return raw


def load_settings(path: Path) -> Settings:
    """Read the settings file; if it is broken use the previous good copy, else defaults.

    A missing file means defaults (the user may have removed it on purpose); never an error.
    """
    try:
        return settings_from_dict(_read_object(path))
    except FileNotFoundError:
        return Settings()
    except (OSError, ValueError) as exc:
        problem = exc
    backup = backup_file(path)
    # said on stderr by a terminal command that keeps no log: names written out, one way
    shown, why = written_out(path), os_error_text(problem, written_out)
    try:
        raw = _read_object(backup)
    except (OSError, ValueError):
        log.warning("settings file %s is unusable (%s); using defaults", shown, why)
        return Settings()
    log.warning(
        "settings file %s is unusable (%s); using the previous copy %s",
        shown,
        why,
        written_out(backup),
    )
    return settings_from_dict(raw)


def save_settings(settings: Settings, path: Path) -> None:
    """Write atomically: a crash mid-save leaves the old file or the new one, never half.

    The file being replaced is first kept as ``.bak`` when it is good, so that a file broken
    later (by hand, by a disk) still has a fallback. A folder that cannot be written (full,
    read-only) is a ``StoreError`` with one sentence; the old file is left as it was.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_temps(path)
        _keep_backup(path)
        _write_atomic(path, settings.model_dump_json(indent=2).encode("utf-8"))
    except OSError as exc:
        raise StoreError(save_problem(path, exc)) from exc


def save_problem(path: Path, exc: OSError) -> StoreProblem:
    """One sentence for a settings file that could not be written, coded (``os`` by its errno)
    so the page says it in its language."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        reason = "the disk is full"
    elif exc.errno == errno.EROFS:
        reason = "it is on a read-only disk"
    else:
        reason = exc.strerror or str(exc)
    return StoreProblem(
        f"Cannot save the settings to {path}: {reason}. The settings apply until the app quits.",
        "settings_not_saved",
        path=path,
        **os_params(exc),
    )


def _keep_backup(path: Path) -> None:
    try:
        current = path.read_bytes()
        _read_object(path)
    except (OSError, ValueError):
        return
    backup = backup_file(path)
    try:
        if backup.read_bytes() == current:
            return
    except OSError:
        pass
    _write_atomic(backup, current)


def _write_atomic(path: Path, payload: bytes) -> None:
    """Private to the user (0600): the file holds the endpoints and folders the agent may use."""
    atomic_write(path, payload, private=True, prefix=f".{path.name}-", suffix=".tmp")


def _remove_stale_temps(path: Path, *, older_than: float = 3600.0) -> None:
    """Temp files a killed save left behind (a save in progress is never that old)."""
    cutoff = time.time() - older_than
    for stale in path.parent.glob(f".{path.name}-*.tmp"):
        try:
            if stale.stat().st_mtime < cutoff:
                stale.unlink()
        except OSError:
            continue
