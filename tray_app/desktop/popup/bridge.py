"""The ``js_api`` object the popup page calls (``window.pywebview.api.<method>(payload)``).

Thin on purpose: every method validates its one payload object with pydantic, calls ``Core``,
and returns a JSON-able envelope, ``{"ok": true, "data": ...}`` or ``{"ok": false, "error":
"...", "code": "..."}`` (plus ``details``: an ``invalid_settings`` refusal's fields, or a coded
error's ``code`` and ``params`` for the page to say in its language), so the page gets one shape
whatever went wrong (pywebview's own exception text differs between backends). The
code comes from ``errors.ERROR_CODES`` by the raised class; a ``data`` never carries a failure.
It holds no state: each call arrives on a new thread and goes straight to ``Core``, which is
safe from any thread.

pywebview exposes every public attribute of this object to the page, so everything that is not
a command is kept behind a leading underscore. No pywebview import here: the window-only
actions (hide, the folder dialog) are callables the desktop app passes in, so the same object
serves the test harness.
"""

from __future__ import annotations

import logging
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from tray_app.base.errors import (
    InvalidRequest,
    InvalidSettings,
    MetonaError,
    RefusedServerName,
    StoreError,
    Unsupported,
    error_code,
)
from tray_app.core.mcp_settings import parse_paste
from tray_app.desktop.popup.bridge_payloads import (
    MAX_IMAGE_B64,
    _ApiKey,
    _CallId,
    _ChangeId,
    _Decide,
    _Edit,
    _Empty,
    _Export,
    _Grant,
    _Link,
    _ListSessions,
    _MaybeSession,
    _McpPaste,
    _McpSecret,
    _Messages,
    _ModelName,
    _ModelToolMode,
    _NewSession,
    _OpenSession,
    _Pull,
    _Send,
    _SessionId,
    _Settings,
    _TurnUndo,
    _UpdateSession,
)
from tray_app.history_warnings import problem_of
from tray_app.tool_errors import CodedError
from tray_app.tools.sandbox.builtin_rules import built_in_rules

if TYPE_CHECKING:
    from tray_app.core.protocol import CoreApi

log = logging.getLogger(__name__)

Envelope = dict[str, Any]


# ---- the bridge -------------------------------------------------------------------------------


class Bridge:
    """What the page may ask for. Each method: ``payload dict -> envelope dict``."""

    def __init__(
        self,
        core: CoreApi,
        *,
        hide_window: Callable[[], None] | None = None,
        pick_folder: Callable[[], str | None] | None = None,
        save_file: Callable[[str], str | None] | None = None,
        open_url: Callable[[str], object] | None = None,
        hotkey_support: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self._core = core
        self._hotkey_support = hotkey_support
        self._hide_window = hide_window
        self._pick_folder = pick_folder
        self._save_file = save_file
        self._open_url = open_url if open_url is not None else webbrowser.open

    # sessions

    def new_session(self, payload: Any = None) -> Envelope:
        return self._call(
            _NewSession,
            payload,
            lambda p: self._core.new_session(model=p.model or None, workspace=p.workspace or None),
        )

    def list_sessions(self, payload: Any = None) -> Envelope:
        return self._call(
            # Titles and message text: the sidebar search finds a chat by what was said in it.
            _ListSessions,
            payload,
            lambda p: self._core.search_sessions(p.query or None),
        )

    def get_session(self, payload: Any = None) -> Envelope:
        return self._call(
            _OpenSession, payload, lambda p: self._core.get_session(p.session_id, limit=p.limit)
        )

    def get_messages(self, payload: Any = None) -> Envelope:
        """Older messages of the open chat, as the page scrolls up (keyset on the message)."""
        return self._call(
            _Messages,
            payload,
            lambda p: self._core.get_messages(p.session_id, before=p.before, limit=p.limit),
        )

    def update_session(self, payload: Any = None) -> Envelope:
        def run(p: _UpdateSession) -> Any:
            fields = p.model_dump(exclude={"session_id"}, exclude_unset=True)
            return self._core.update_session(p.session_id, **fields)

        return self._call(_UpdateSession, payload, run)

    def delete_session(self, payload: Any = None) -> Envelope:
        return self._call(_SessionId, payload, lambda p: self._core.delete_session(p.session_id))

    def export_session(self, payload: Any = None) -> Envelope:
        """Save the chat (also an unsaved one) to a file the user picks in the native save
        dialog; ``saved: false`` when the dialog is cancelled."""

        def run(p: _Export) -> Any:
            from tray_app.desktop.popup.export_file import default_name, export_text, write_export

            if self._save_file is None:
                raise Unsupported("this window has no save dialog")
            title = self._core.get_session(p.session_id)["session"].get("title")
            data = self._core.export_session(p.session_id, fmt=p.format)["data"]
            chosen = self._save_file(default_name(title, p.format))
            if not chosen:
                return {"saved": False, "path": None}
            path = Path(chosen).expanduser().absolute()
            write_export(path, export_text(data))
            return {"saved": True, "path": str(path), "format": p.format}

        return self._call(_Export, payload, run)

    # turns

    def send_message(self, payload: Any = None) -> Envelope:
        def run(p: _Send) -> Any:
            if any(len(image) > MAX_IMAGE_B64 for image in p.images):
                raise InvalidRequest("an attached image is too large")
            return self._core.send_message(p.session_id, p.text, images=p.images or None)

        return self._call(_Send, payload, run)

    def retry(self, payload: Any = None) -> Envelope:
        return self._call(_SessionId, payload, lambda p: self._core.retry(p.session_id))

    def edit_last(self, payload: Any = None) -> Envelope:
        return self._call(_Edit, payload, lambda p: self._core.edit_last(p.session_id, p.text))

    def abort(self, payload: Any = None) -> Envelope:
        return self._call(_MaybeSession, payload, lambda p: self._core.abort(p.session_id))

    # approvals

    def decide(self, payload: Any = None) -> Envelope:
        return self._call(
            _Decide,
            payload,
            lambda p: self._core.decide(
                p.call_id, p.approve, remember=p.remember, by="popup", rule=p.rule
            ),
        )

    def permissions(self, payload: Any = None) -> Envelope:
        """Settings › Permissions: the lasting rules and the session grants."""
        return self._call(_Empty, payload, lambda _p: self._core.permissions())

    def revoke_grant(self, payload: Any = None) -> Envelope:
        return self._call(_Grant, payload, lambda p: self._core.revoke_grant(p.session_id, p.tool))

    def pending_approvals(self, payload: Any = None) -> Envelope:
        return self._call(_Empty, payload, lambda _p: self._core.pending_approvals())

    def status(self, payload: Any = None) -> Envelope:
        return self._call(_Empty, payload, lambda _p: self._core.status())

    # models and the server

    def list_models(self, payload: Any = None) -> Envelope:
        return self._call(_Empty, payload, lambda _p: self._core.list_models())

    def server_status(self, payload: Any = None) -> Envelope:
        return self._call(_Empty, payload, lambda _p: self._core.server_status())

    def pull_model(self, payload: Any = None) -> Envelope:
        return self._call(_Pull, payload, lambda p: self._core.pull_model(p.name))

    def set_model_tool_mode(self, payload: Any = None) -> Envelope:
        """The model menu's tools switch: "native", "prompt", "off" or automatic (null)."""
        return self._call(
            _ModelToolMode, payload, lambda p: self._core.set_model_tool_mode(p.name, p.mode)
        )

    def check_model_tools(self, payload: Any = None) -> Envelope:
        """The model menu's check: one small tool request, its finding stored (may take a
        while: the model may have to load)."""
        return self._call(_ModelName, payload, lambda p: self._core.check_model_tools(p.name))

    # settings

    def get_settings(self, payload: Any = None) -> Envelope:
        return self._call(_Empty, payload, lambda _p: self._core.get_settings())

    def update_settings(self, payload: Any = None) -> Envelope:
        return self._call(_Settings, payload, lambda p: self._core.update_settings(p.patch))

    def keyring_status(self, payload: Any = None) -> Envelope:
        """Whether the OS keyring keeps keys and what storing one will ask (Settings' note)."""
        return self._call(_Empty, payload, lambda _p: self._core.keyring_status())

    def set_api_key(self, payload: Any = None) -> Envelope:
        """Keep the endpoint's API key in the OS keyring (an empty key removes it)."""

        return self._call(_ApiKey, payload, lambda p: self._core.set_api_key(p.key))

    # MCP tool servers

    def mcp_status(self, payload: Any = None) -> Envelope:
        """Each configured server: status, last error, its tools with their risk."""
        return self._call(_Empty, payload, lambda _p: self._core.mcp_status())

    def mcp_parse_import(self, payload: Any = None) -> Envelope:
        """A pasted Claude Desktop config, checked like ``mcp import``; the page then saves
        the merge through ``update_settings`` (so a new server needs the user's own click)."""
        return self._call(_McpPaste, payload, lambda p: parse_paste(p.text))

    def set_mcp_secret(self, payload: Any = None) -> Envelope:
        """Keep a server's env or header secret in the OS keyring; the answer carries only the
        ``keyring:NAME`` reference the page writes in its place, never the secret."""
        return self._call(
            _McpSecret, payload, lambda p: self._core.set_mcp_secret(p.name, p.secret or None)
        )

    # undo

    def undo_last(self, payload: Any = None) -> Envelope:
        return self._call(_Empty, payload, lambda _p: self._core.undo_last())

    def undo(self, payload: Any = None) -> Envelope:
        return self._call(_CallId, payload, lambda p: self._core.undo(p.call_id))

    def changes(self, payload: Any = None) -> Envelope:
        """What the agent changed, newest first (the page's change history)."""
        return self._call(_Empty, payload, lambda _p: self._core.changes())

    def built_in_rules(self, payload: Any = None) -> Envelope:
        """The folders and names always refused (Settings lists them read-only)."""
        return self._call(_Empty, payload, lambda _p: built_in_rules())

    def undo_change(self, payload: Any = None) -> Envelope:
        return self._call(_ChangeId, payload, lambda p: self._core.undo_change(p.change_id))

    def undo_turn(self, payload: Any = None) -> Envelope:
        """Undo a whole turn (the change history's "Undo this turn"); what was left, and why,
        is in the outcome, and ``force_ids`` undoes the ones the user chose anyway."""
        return self._call(
            _TurnUndo, payload, lambda p: self._core.undo_turn(p.turn_id, force_ids=p.force_ids)
        )

    def full_result(self, payload: Any = None) -> Envelope:
        return self._call(_CallId, payload, lambda p: self._core.full_result(p.call_id))

    # the window and the desktop

    def open_link(self, payload: Any = None) -> Envelope:
        """Open a link from a message in the system browser, never inside the popup."""

        def run(p: _Link) -> Any:
            url = checked_link(p.url)
            opener = getattr(self._core, "open_link", None)
            if opener is not None:
                return opener(url)
            self._open_url(url)
            return {"opened": url}

        return self._call(_Link, payload, run)

    def hide(self, payload: Any = None) -> Envelope:
        def run(_p: _Empty) -> Any:
            if self._hide_window is None:
                raise Unsupported("this window cannot be hidden")
            self._hide_window()
            return {"hidden": True}

        return self._call(_Empty, payload, run)

    def pick_folder(self, payload: Any = None) -> Envelope:
        """The native folder dialog; ``supported: false`` tells the page to ask for a path."""

        def run(_p: _Empty) -> Any:
            if self._pick_folder is None:
                return {"supported": False, "path": None}
            return {"supported": True, "path": self._pick_folder()}

        return self._call(_Empty, payload, run)

    def hotkey_status(self, payload: Any = None) -> Envelope:
        """Whether a global hotkey works on this desktop (on Wayland it cannot: the settings
        page then says how to bind ``metona-tray --toggle`` instead)."""

        def run(_p: _Empty) -> Any:
            if self._hotkey_support is None:
                return {"supported": None, "session": None, "hint": None}
            return self._hotkey_support()

        return self._call(_Empty, payload, run)

    # ---- plumbing -----------------------------------------------------------------------------

    def _call(self, model: type[Any], payload: Any, run: Callable[[Any], Any]) -> Envelope:
        try:
            parsed = model.model_validate({} if payload is None else payload)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "payload"
            return _error("invalid_request", f"{where}: {first.get('msg', 'invalid')}")
        try:
            return {"ok": True, "data": run(parsed)}
        except MetonaError as exc:
            envelope = _error(error_code(exc), str(exc))
            if isinstance(exc, InvalidSettings):
                envelope["details"] = {
                    "errors": exc.errors,
                    "settings": exc.settings,
                    "codes": exc.codes,
                }
            elif isinstance(exc, RefusedServerName):  # a pasted server's name: said the same
                envelope["details"] = {
                    "server": exc.server,
                    "name_code": exc.code,
                    "name_params": exc.params,
                }
            elif isinstance(exc, CodedError):  # the page says why in its language
                envelope["details"] = {"code": exc.code, "params": exc.params}
            elif isinstance(exc, StoreError) and exc.reason_info:  # the undo journal's reason
                info = exc.reason_info
                envelope["details"] = {"reason_code": info["code"], "reason_params": info["params"]}
            elif isinstance(exc, StoreError) and (problem := problem_of(exc)) is not None:
                envelope["details"] = {
                    "problem_code": problem.code,
                    "problem_params": problem.params,
                }
            return envelope
        except Exception as exc:  # a bug: the page shows a sentence, the log has the trace
            log.exception("bridge command failed")
            return _error("internal", f"{type(exc).__name__}: {exc}")


def bridge_commands() -> list[str]:
    """The names of the page's commands (every public method of ``Bridge``)."""
    return sorted(
        name for name in vars(Bridge) if not name.startswith("_") and callable(vars(Bridge)[name])
    )


def _error(code: str, message: str) -> Envelope:
    return {"ok": False, "code": code, "error": message}


def checked_link(url: str) -> str:
    """Only web and mail links leave the page; anything else (javascript:, file:) is refused."""
    url = url.strip()
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https") and parts.netloc:
        return url
    if scheme == "mailto" and parts.path:
        return url
    raise InvalidRequest("only http, https and mailto links can be opened")
