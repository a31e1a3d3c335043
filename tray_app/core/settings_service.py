"""The settings in force: the one place every part of Core reads them from.

``Settings`` (``store/settings.py``) declares each option and its default once; this service
holds the current instance, applies a change all-or-nothing, saves it, tells its listeners
(the provider, the approval broker) and publishes ``settings_updated``. It also owns the lazily
opened keyring, which ``get_settings`` reports on once it is open. Runs on the core thread only.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tray_app.base.errors import InvalidSettings, StoreError
from tray_app.base.events import Event, SettingsUpdated
from tray_app.base.paths import AppPaths
from tray_app.core.results import Json, KeyringStatus, SettingsSaved
from tray_app.store.settings import Settings, save_settings
from tray_app.tools.tool_rules import RuleBook


def new_rule_problems(rules: object, kept: list[Any]) -> dict[str, str]:
    """Why a rule the patch adds cannot be kept (``tool_rules.N``: code); {} when none."""
    if not isinstance(rules, list):
        return {"tool_rules": "not a list"}
    fresh = [(i, r) for i, r in enumerate(rules) if r not in kept]
    book = RuleBook([r for _, r in fresh])
    # A deny kept as written (its folder missing or a link) never widens: it may be added.
    return {f"tool_rules.{fresh[p.index][0]}": p.code for p in book.problems if not p.kept}


if TYPE_CHECKING:
    from tray_app.store.secrets import SecretStore

SettingsListener = Callable[[Settings, Settings], Awaitable[None]]  # (old, new)


class Secrets:
    """The keyring, opened on first need: probing it can start helper processes. Any thread
    (``get_settings`` and the MCP servers read it off the core loop): opened once, locked.
    Nothing here opens it for a key nobody stored: the settings say which endpoints have one,
    and a ``keyring:NAME`` reference says an MCP server's secret was stored."""

    def __init__(self, factory: Callable[[], SecretStore] | None) -> None:
        self._factory = factory
        self._store: SecretStore | None = None
        self._lock = threading.Lock()

    def get(self) -> SecretStore | None:
        with self._lock:
            if self._store is None and self._factory is not None:
                self._store = self._factory()
            return self._store

    @property
    def can_open(self) -> bool:
        """Whether there is a keyring to open here (the terminal and tests may have none)."""
        return self._factory is not None

    def opened(self) -> SecretStore | None:
        """The keyring if something already opened it, without opening it."""
        with self._lock:
            return self._store

    def lookup(self, name: str) -> str | None:
        """One kept secret (an MCP server's ``keyring:NAME``), read without a prompt;
        ``SecretUnreadable`` when the keyring cannot be read now."""
        store = self.get()
        return store.read(name) if store is not None else None

    def api_key(self, settings: Settings) -> str | None:
        """The API key of the settings' endpoint: read from the keyring only when one was
        stored there, else one kept in memory this session (if the keyring is open at all)."""
        from tray_app.store.secrets import endpoint_key

        if endpoint_key(settings.endpoint) in settings.api_key_endpoints:
            store = self.get()
            return store.get(settings.endpoint) if store is not None else None
        store = self.opened()
        return store.remembered(settings.endpoint) if store is not None else None

    def status(self) -> KeyringStatus:
        """Whether keys can be kept and what storing one will ask (the Settings page's note):
        opens the keyring and looks at it without a prompt, a few seconds at most."""
        store = self.get()
        if store is None:
            return {"usable": False, "problem": None, "state": None}
        return {
            "usable": store.usable,
            "problem": None if store.usable else store.problem,
            "state": store.keyring_state() if store.usable else None,
        }


class SettingsService:
    def __init__(
        self,
        settings: Settings,
        *,
        paths: AppPaths,
        persist: bool,
        secrets: Secrets,
        publish: Callable[[Event], None],
    ) -> None:
        self._settings = settings
        self._paths = paths
        self._persist = persist
        self._secrets = secrets
        self._publish = publish
        self._listeners: list[SettingsListener] = []

    @property
    def current(self) -> Settings:
        return self._settings

    def listen(self, listener: SettingsListener) -> None:
        """``listener(old, new)`` runs after each applied change, before it is saved."""
        self._listeners.append(listener)

    def view(self) -> Json:
        """The settings for the page, with whether a key is kept and, once something opened
        the keyring, whether it works (None before: ``keyring_status`` looks)."""
        from tray_app.core.mcp_settings import public_settings  # MCP config: not for a chat
        from tray_app.store.secrets import endpoint_key

        data = public_settings(self._settings.model_dump())
        secrets = self._secrets.opened()  # never opened here: a start must not wait on it
        endpoint = self._settings.endpoint
        data["api_key_set"] = endpoint_key(endpoint) in self._settings.api_key_endpoints or bool(
            secrets and secrets.remembered(endpoint)
        )
        if secrets is not None:
            data["keyring_usable"] = secrets.usable
        else:  # not opened yet: not known, unless there is no keyring to open at all
            data["keyring_usable"] = None if self._secrets.can_open else False
        data["keyring_problem"] = secrets.problem if secrets and not secrets.usable else None
        return data

    async def update(self, patch: Json) -> SettingsSaved:
        """Validate and apply a partial change; when any field is invalid nothing changes and
        ``InvalidSettings`` says which fields and why."""
        from tray_app.core.mcp_settings import prepare_servers, public_settings

        unknown = sorted(set(patch) - set(Settings.model_fields))
        if unknown:
            raise self._invalid({name: "unknown setting" for name in unknown})
        if "mcp_servers" in patch:  # secrets kept, each changed server checked on its own
            codes: dict[str, dict[str, Any]] = {}
            servers, problems = prepare_servers(
                patch["mcp_servers"], self._settings.mcp_servers, codes
            )
            if problems:
                raise self._invalid(problems, codes)
            patch = {**patch, "mcp_servers": servers}
        if "tool_rules" in patch:  # a new rule must be good; those already kept stay as read
            problems = new_rule_problems(patch["tool_rules"], self._settings.tool_rules)
            if problems:
                raise self._invalid(problems)
        try:
            updated = Settings.model_validate({**self._settings.model_dump(), **patch})
        except ValidationError as exc:
            errors = {".".join(str(p) for p in e["loc"]): e["msg"] for e in exc.errors()}
            raise self._invalid(errors) from None
        old = self._settings
        self._settings = updated
        for listener in self._listeners:
            await listener(old, updated)
        shown = public_settings(updated.model_dump())
        if self._persist:
            try:
                save_settings(updated, self._paths.settings_file)
            except StoreError:
                # Not saved, yet in force until the app quits (the error says so): every
                # viewer shows what is in force.
                self._publish(SettingsUpdated(settings=shown))
                raise
        self._publish(SettingsUpdated(settings=shown))
        return {"settings": shown}

    async def mark_api_key(self, endpoint: str, stored: bool) -> None:
        """Record whether the keyring holds this endpoint's API key (never the key itself)."""
        from tray_app.store.secrets import endpoint_key

        user = endpoint_key(endpoint)
        marked = [e for e in self._settings.api_key_endpoints if e != user]
        if stored:
            marked = [*marked[-999:], user]
        if marked != self._settings.api_key_endpoints:
            await self.update({"api_key_endpoints": marked})

    def _invalid(
        self, errors: dict[str, str], codes: dict[str, dict[str, Any]] | None = None
    ) -> InvalidSettings:
        from tray_app.core.mcp_settings import public_settings

        text = "; ".join(f"{name}: {why}" for name, why in errors.items())
        return InvalidSettings(
            f"not saved: {text}",
            errors=errors,
            settings=public_settings(self._settings.model_dump()),
            codes=codes,
        )
