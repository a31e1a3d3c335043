"""The codes of every tool failure: one table, so the page and the terminal can say each in the
user's language.

A failed call answers the model with an English sentence (``{"success": false, "error": ...}``:
the model's text must not change language with the UI) and carries, for the card and the
terminal only, a ``code`` from ``ToolErrorCode`` and its ``params`` (the facts the sentence
names: paths, sizes, counts). ``web/locales/*.json`` hold ``tool_error.<code>`` in every
language, read by the page and the terminal alike; ``tests/tools/test_tool_errors.py`` fails
on a code without a text, on a ``failure()`` or coded raise without a code, and on a failure
path that comes back uncoded.

This sits at the bottom of the package (beside ``errors.py``) because ``SandboxViolation`` and
the agent's own refusals carry these codes too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

ToolErrorCode = Literal[
    # The agent's refusals and the user's decisions (agent/calls.py).
    "stopped",
    "stopped_running",
    "not_run_denied",
    "not_run_timeout",
    "not_run_cancelled",
    "not_run_rule",
    "not_run_rule_folder",
    "read_only_mode",
    "target_kept_changing",
    "target_changed",
    "repeated",
    "round_limit",
    "too_many_calls",
    "failed_inside_app",
    "tools_disabled",
    "not_run",
    # Checking a call (tools/toolbox.py).
    "unknown_tool",
    "tool_not_enabled",
    "invalid_arguments",
    "argument_missing",
    "argument_unknown",
    "argument_wrong_type",
    "argument_not_a_choice",
    "argument_too_long",
    "argument_too_short",
    "argument_out_of_range",
    "failed_unexpectedly",
    # The sandbox policy (tools/sandbox/policy.py).
    "path_not_text",
    "path_empty",
    "path_too_long",
    "path_control_char",
    "path_bad_chars",
    "path_is_url",
    "path_windows_refused",
    "path_secret_config",
    "path_secret_name",
    "path_outside",
    "path_link_outside",
    "path_in_system_folder",
    "path_in_credential_folder",
    "path_in_blocked_folder",
    "path_in_app_folder",
    "path_in_git",
    "path_hard_links",
    "path_climbs",
    "path_link_loop",
    # The operating system's answers (tools/failures.py).
    "file_not_found",
    "folder_not_found",
    "path_not_found",
    "permission_denied",
    "not_permitted",
    "is_a_folder",
    "not_a_folder_on_path",
    "too_many_links",
    "name_too_long",
    "disk_full",
    "read_only_disk",
    "folder_not_empty",
    "already_exists",
    "in_use",
    "other_device",
    "os_error",
    # Reading (read_file, read_many, list_directory...).
    "not_a_file_folder",
    "not_a_regular_file",
    "not_a_folder_file",
    "not_a_folder",
    "became_link",
    "file_too_large",
    "binary_file",
    "lines_need_text",
    "lines_reversed",
    "start_past_end",
    "none_readable",
    # Text encodings (tools/fs/text_codec.py).
    "not_utf16",
    "invalid_text",
    "unencodable_text",
    "encoding_not_writable",
    "encoding_changes_bytes",
    "base64_is_for_reading",
    # Changing files (write_file, edit_file, create_directory, move_file, delete_file).
    "changed_after_approval",
    "changed_while_editing",
    "ends_with_separator",
    "not_writable_kind",
    "content_too_large",
    "folders_left_behind",
    "exists_not_folder",
    "edit_too_large",
    "edit_binary",
    "edit_old_text_empty",
    "edit_old_text_blank",
    "edit_many_matches",
    "edit_too_many_matches",
    "edit_no_match",
    "edit_no_match_empty_file",
    "edit_no_change",
    "edit_would_grow",
    "move_protected",
    "move_same_place",
    "move_into_itself",
    "move_onto_folder",
    "move_destination_exists",
    "move_destination_appeared",
    "move_other_disk",
    "delete_protected",
    "delete_folder_not_empty",
    "delete_holds_secret",
    "delete_holds_blocked",
    "delete_holds_hard_link",
    "delete_too_many",
    "delete_unchecked",
    "delete_partly_done",
    "undo_unavailable",
    # run_command (tools/builtin/shell.py).
    "command_disabled",
    "command_refused_nul",
    "command_refused_too_long",
    "command_refused_empty",
    "command_refused_destroys",
    "command_refused_shutdown",
    "command_refused_accounts",
    "command_refused_eval",
    "command_refused_fork_bomb",
    "command_refused_reverse_shell",
    "command_refused_pipe_to_shell",
    "command_refused_feeds_shell",
    "command_refused_exec_redirect",
    "command_refused_raw_disk",
    "command_refused_root",
    "command_refused_recursive_delete",
    "command_refused_dd",
    "command_refused_chmod",
    "command_refused_chown",
    "command_refused_crontab",
    "command_refused_systemctl",
    "command_refused_format",
    "command_cwd_not_folder",
    "command_sandbox_no_bwrap",
    "command_sandbox_missing",
    "command_sandbox_unsupported",
    "command_sandbox_failed",
    "command_cancelled_before_start",
    "command_exit",
    "command_timed_out",
    "command_cancelled",
    # The git tools (tools/builtin/git_*.py).
    "git_missing",
    "git_not_repository",
    "git_path_outside_repo",
    "git_failed",
    "git_timed_out",
    "git_empty_message",
    "git_message_too_long",
    "git_nothing_to_commit",
    "git_no_identity",
    # web_fetch (tools/builtin/web_*.py).
    "web_bad_url",
    "web_unresolved",
    "web_address_refused",
    "web_too_many_redirects",
    "web_http_status",
    "web_unsupported_type",
    "web_timed_out",
    "web_failed",
    "web_unreadable",
    # MCP servers (mcp/tools.py).
    "mcp_timed_out",
    "mcp_server_stopped",
    "mcp_sse_too_large",
    "mcp_call_failed",
    "mcp_cancelled",
    "mcp_reported_error",
    # Undoing a change the user asked to undo (tools/journal/journal_undo.py, restore.py): not a
    # tool call's failure, but Core's UndoFailed carries these so the page and terminal say why.
    "undo_changed_created",
    "undo_changed_removed",
    "undo_changed_link",
    "undo_changed_modified",
    "undo_changed_exists",
    "undo_changed_folder",
    "undo_changed_not_empty",
    "undo_link_on_the_way",
    "undo_folder_gone",
    "undo_copy_damaged",
    "undo_os_error",
    "undo_not_undoable",
    "undo_nothing",
    "undo_call_already_undone",
    "undo_call_unknown",
    "undo_change_did_nothing",
    "undo_change_already_undone",
    "undo_change_unknown",
    "undo_turn_unknown",
    "undo_turn_already_undone",
    "undo_turn_later_kept",
    "undo_anyway_no_copy",
    "undo_journal_unreadable",
]

#: Every code, for the checks that run on data (the page's records, older rows).
TOOL_ERROR_CODES: frozenset[str] = frozenset(get_args(ToolErrorCode))

#: A parameter is shown, never trusted: a hostile path or server text is cut to this many
#: characters (the model's sentence keeps what the tool said).
MAX_PARAM_CHARS = 2000

Params = dict[str, str | int | float]


def clean_params(params: Mapping[str, object] | None) -> Params:
    """Parameters fit to store and show: text bounded, numbers kept, anything else as text."""
    out: Params = {}
    for key, value in (params or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            text = str(value)
            if len(text) > MAX_PARAM_CHARS:
                text = text[:MAX_PARAM_CHARS] + "…"
            # File names that are not UTF-8 arrive as lone surrogates: not storable as JSON text.
            value = text.encode("utf-8", "replace").decode("utf-8")
        out[str(key)] = value
    return out


class CodedError(Exception):
    """An error whose ``str()`` is the English sentence for the model and whose ``code`` and
    ``params`` let the card and the terminal say it in the user's language."""

    def __init__(self, message: str, *, code: ToolErrorCode, **params: object) -> None:
        super().__init__(message)
        self.code: ToolErrorCode = code
        self.params: Params = clean_params(params)
